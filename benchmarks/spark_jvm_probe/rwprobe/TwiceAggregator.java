package rwprobe;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * Whether a group's 64-bit values hold one twice: the duplicate check of the
 * ranks strategy's first scan as JVM code (primitive longs, no boxing in the
 * buffer), to measure against collect_list. A probe, not part of rankwise.
 */
public final class TwiceAggregator extends Aggregator<Long, LongBag, Boolean> {
    private static final long serialVersionUID = 1L;

    @Override
    public LongBag zero() {
        return new LongBag();
    }

    @Override
    public LongBag reduce(LongBag bag, Long value) {
        bag.add(value);
        return bag;
    }

    @Override
    public LongBag merge(LongBag a, LongBag b) {
        a.addAll(b);
        return a;
    }

    @Override
    public Boolean finish(LongBag bag) {
        long[] sorted = java.util.Arrays.copyOf(bag.values, bag.size);
        java.util.Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Encoder<LongBag> bufferEncoder() {
        return Encoders.kryo(LongBag.class);
    }

    @Override
    public Encoder<Boolean> outputEncoder() {
        return Encoders.BOOLEAN();
    }
}
