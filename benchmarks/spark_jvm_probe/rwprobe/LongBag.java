package rwprobe;

/** A growable array of longs: the buffer of {@link TwiceAggregator}, one per group. */
public final class LongBag implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    public long[] values = new long[16];
    public int size = 0;

    public void add(long value) {
        if (size == values.length) {
            values = java.util.Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    public void addAll(LongBag other) {
        if (size + other.size > values.length) {
            values = java.util.Arrays.copyOf(values, Math.max(size + other.size, values.length * 2));
        }
        System.arraycopy(other.values, 0, values, size, other.size);
        size += other.size;
    }
}
