package rwprobe;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.XXH64;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The whole per-row work of a {@code ranks} written as JVM code, in one pass per
 * partition over a run of (q, d, s) rows grouped by query (a probe, not part of
 * rankwise). For each run of consecutive rows of one query (a fragment): its rows,
 * top score, non-finite scores and whether a document is listed twice (hashes
 * sorted, equal hashes confirmed on the ids); its judged documents (the query's own
 * judged ids, found by hash and confirmed on the ids) and for each: the rows above
 * it, the rows of its score and those of them with a greater id (byte order). The
 * first and last fragment of a partition may be parts of a query split across
 * partitions: their rows (score and id) are shipped too, for the driver to merge.
 *
 * <p>One byte array per partition, little-endian, columns one after another (see
 * {@link Out#toBytes}), so the driver reads each with numpy without a loop.
 */
public final class RanksPass {
    private static final long SEED = 42L; /* Spark's xxhash64 seed */

    private RanksPass() {}

    static long hash(Object base, long offset, int length) {
        return XXH64.hashUnsafeBytes(base, offset, length, SEED);
    }

    /** Byte order of two ids (unsigned), as Spark and numpy compare UTF-8. */
    static int compare(byte[] a, int aFrom, int aLength, byte[] b, int bFrom, int bLength) {
        return Arrays.compareUnsigned(a, aFrom, aFrom + aLength, b, bFrom, bFrom + bLength);
    }

    /** The judged documents, per query: hashes sorted, with their judgment and id. */
    static final class Judged implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        long[] queryKeys; /* open addressing by query hash; 0: empty */
        int[] queryStart, queryEnd; /* per slot: range in the arrays below */
        long[] docHash; /* sorted within each query's range */
        long[] judgment;
        int[] docOffset; /* into docBytes, with docLength: each entry's id */
        int[] docLength;
        byte[] docBytes;
        byte[][] queryText; /* per slot: the query id, to confirm a hash */

        int slotOf(UTF8String q, long queryHash) {
            long key = queryHash == 0 ? 1 : queryHash; /* 0 marks an empty slot */
            int mask = queryKeys.length - 1;
            for (int at = (int) key & mask; queryKeys[at] != 0; at = (at + 1) & mask) {
                if (queryKeys[at] == key && Arrays.equals(queryText[at], q.getBytes())) {
                    return at;
                }
            }
            return -1;
        }
    }

    /** Growable columns of one partition's output. */
    static final class Out {
        long[] fRows = new long[64], fBad = new long[64], fTwice = new long[64], fFlags = new long[64];
        double[] fTop = new double[64];
        long[] fQueryOffset = new long[65];
        byte[] queryBytes = new byte[1024];
        int f = 0, queryBytesN = 0;
        long[] hFragment = new long[256], hJudgment = new long[256], hAbove = new long[256];
        long[] hSize = new long[256], hGreater = new long[256];
        double[] hScore = new double[256];
        int h = 0;
        long[] bFragment = new long[256], bDocOffset = new long[257];
        double[] bScore = new double[256];
        byte[] bBytes = new byte[2048];
        int b = 0, bBytesN = 0;

        void fragment(UTF8String q, long rows, double top, long bad, long twice, long flags) {
            if (f == fRows.length) {
                int n = f * 2;
                fRows = Arrays.copyOf(fRows, n);
                fBad = Arrays.copyOf(fBad, n);
                fTwice = Arrays.copyOf(fTwice, n);
                fFlags = Arrays.copyOf(fFlags, n);
                fTop = Arrays.copyOf(fTop, n);
                fQueryOffset = Arrays.copyOf(fQueryOffset, n + 1);
            }
            byte[] text = q.getBytes();
            if (queryBytesN + text.length > queryBytes.length) {
                queryBytes = Arrays.copyOf(queryBytes, Math.max(queryBytes.length * 2, queryBytesN + text.length));
            }
            System.arraycopy(text, 0, queryBytes, queryBytesN, text.length);
            queryBytesN += text.length;
            fRows[f] = rows;
            fTop[f] = top;
            fBad[f] = bad;
            fTwice[f] = twice;
            fFlags[f] = flags;
            fQueryOffset[f + 1] = queryBytesN;
            f++;
        }

        void hit(long judgment, double score, long above, long size, long greater) {
            if (h == hJudgment.length) {
                int n = h * 2;
                hFragment = Arrays.copyOf(hFragment, n);
                hJudgment = Arrays.copyOf(hJudgment, n);
                hAbove = Arrays.copyOf(hAbove, n);
                hSize = Arrays.copyOf(hSize, n);
                hGreater = Arrays.copyOf(hGreater, n);
                hScore = Arrays.copyOf(hScore, n);
            }
            hFragment[h] = f; /* the fragment about to be written */
            hJudgment[h] = judgment;
            hScore[h] = score;
            hAbove[h] = above;
            hSize[h] = size;
            hGreater[h] = greater;
            h++;
        }

        void boundaryRow(double score, byte[] bytes, int from, int length) {
            if (b == bScore.length) {
                int n = b * 2;
                bFragment = Arrays.copyOf(bFragment, n);
                bScore = Arrays.copyOf(bScore, n);
                bDocOffset = Arrays.copyOf(bDocOffset, n + 1);
            }
            if (bBytesN + length > bBytes.length) {
                bBytes = Arrays.copyOf(bBytes, Math.max(bBytes.length * 2, bBytesN + length));
            }
            System.arraycopy(bytes, from, bBytes, bBytesN, length);
            bBytesN += length;
            bFragment[b] = f;
            bScore[b] = score;
            bDocOffset[b + 1] = bBytesN;
            b++;
        }

        private static int padded(int n) {
            return (n + 7) & ~7;
        }

        /** Counts (f, h, b, query bytes, row bytes), then every column in that order. */
        byte[] toBytes() {
            int size = 8 * 5 + f * 8 * 5 + (f + 1) * 8 + padded(queryBytesN) + h * 8 * 6
                       + b * 8 * 2 + (b + 1) * 8 + padded(bBytesN);
            ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            out.putLong(f).putLong(h).putLong(b).putLong(queryBytesN).putLong(bBytesN);
            for (long[] column : new long[][] {fRows, fBad, fTwice, fFlags}) {
                for (int i = 0; i < f; i++) out.putLong(column[i]);
            }
            for (int i = 0; i < f; i++) out.putDouble(fTop[i]);
            for (int i = 0; i <= f; i++) out.putLong(fQueryOffset[i]);
            out.put(queryBytes, 0, queryBytesN).position(out.position() + padded(queryBytesN) - queryBytesN);
            for (long[] column : new long[][] {hFragment, hJudgment, hAbove, hSize, hGreater}) {
                for (int i = 0; i < h; i++) out.putLong(column[i]);
            }
            for (int i = 0; i < h; i++) out.putDouble(hScore[i]);
            for (int i = 0; i < b; i++) out.putLong(bFragment[i]);
            for (int i = 0; i < b; i++) out.putDouble(bScore[i]);
            for (int i = 0; i <= b; i++) out.putLong(bDocOffset[i]);
            out.put(bBytes, 0, bBytesN);
            return out.array();
        }
    }

    /** One partition. */
    static final class Pass implements FlatMapFunction<Iterator<InternalRow>, byte[]> {
        private static final long serialVersionUID = 1L;
        private final Judged judged;

        Pass(Judged judged) {
            this.judged = judged;
        }

        /* The current fragment's rows. */
        private long[] hashes = new long[1024];
        private int[] hashRow = new int[1024];
        private double[] scores = new double[1024];
        private int[] docFrom = new int[1024], docLength = new int[1024];
        private byte[] docBytes = new byte[8192];
        private int n = 0, bytesN = 0;
        private int[] hitRow = new int[64], tiedRow = new int[256], tiedAt = new int[256];
        private long[] hitJudgment = new long[64];
        private int k = 0;

        private void add(UTF8String d, double s) {
            if (n == hashes.length) {
                int grown = n * 2;
                hashes = Arrays.copyOf(hashes, grown);
                hashRow = Arrays.copyOf(hashRow, grown);
                scores = Arrays.copyOf(scores, grown);
                docFrom = Arrays.copyOf(docFrom, grown);
                docLength = Arrays.copyOf(docLength, grown);
            }
            int length = d.numBytes();
            if (bytesN + length > docBytes.length) {
                docBytes = Arrays.copyOf(docBytes, Math.max(docBytes.length * 2, bytesN + length));
            }
            Platform.copyMemory(d.getBaseObject(), d.getBaseOffset(), docBytes,
                                Platform.BYTE_ARRAY_OFFSET + bytesN, length);
            hashes[n] = hash(docBytes, Platform.BYTE_ARRAY_OFFSET + bytesN, length);
            scores[n] = s;
            docFrom[n] = bytesN;
            docLength[n] = length;
            bytesN += length;
            n++;
        }

        private void findJudged(int slot) {
            if (slot < 0) {
                return;
            }
            int start = judged.queryStart[slot], end = judged.queryEnd[slot];
            for (int row = 0; row < n; row++) {
                int at = Arrays.binarySearch(judged.docHash, start, end, hashes[row]);
                if (at < 0) {
                    continue;
                }
                while (at > start && judged.docHash[at - 1] == hashes[row]) {
                    at--;
                }
                for (; at < end && judged.docHash[at] == hashes[row]; at++) {
                    if (compare(docBytes, docFrom[row], docLength[row], judged.docBytes,
                                judged.docOffset[at], judged.docLength[at]) == 0) {
                        if (k == hitRow.length) {
                            hitRow = Arrays.copyOf(hitRow, k * 2);
                            hitJudgment = Arrays.copyOf(hitJudgment, k * 2);
                        }
                        hitRow[k] = row;
                        hitJudgment[k] = judged.judgment[at];
                        k++;
                        break;
                    }
                }
            }
        }

        /* A set of this fragment's hashes: slots stamped with the fragment's generation. */
        private long[] setHash = new long[4096];
        private int[] setRow = new int[4096], setStamp = new int[4096];
        private int generation = 0;

        /* 1 if a document is listed twice (equal hashes confirmed on the ids). */
        private long listedTwice() {
            if (setHash.length < 2 * n) {
                int cap = setHash.length;
                while (cap < 2 * n) cap *= 2;
                setHash = new long[cap];
                setRow = new int[cap];
                setStamp = new int[cap];
                generation = 0;
            }
            generation++;
            int mask = setHash.length - 1;
            for (int i = 0; i < n; i++) {
                long h = hashes[i];
                int at = (int) (h ^ (h >>> 32)) & mask;
                while (setStamp[at] == generation) {
                    if (setHash[at] == h && compare(docBytes, docFrom[i], docLength[i], docBytes,
                                                    docFrom[setRow[at]], docLength[setRow[at]]) == 0) {
                        return 1;
                    }
                    at = (at + 1) & mask;
                }
                setStamp[at] = generation;
                setHash[at] = h;
                setRow[at] = i;
            }
            return 0;
        }

        private void finish(UTF8String q, boolean first, boolean last, Out out) {
            if (q == null) {
                return;
            }
            findJudged(judged.slotOf(q, hash(q.getBaseObject(), q.getBaseOffset(), q.numBytes())));
            double top = Double.NEGATIVE_INFINITY;
            long bad = 0;
            for (int i = 0; i < n; i++) {
                double s = scores[i];
                if (Double.isNaN(s) || Double.isInfinite(s)) bad++;
                else if (s > top) top = s;
            }
            /* per hit: rows above, of its score, and of its score with a greater id */
            double[] hitScores = new double[k];
            for (int j = 0; j < k; j++) hitScores[j] = scores[hitRow[j]];
            double[] sorted = hitScores.clone();
            Arrays.sort(sorted);
            long[] below = new long[k + 1], same = new long[k];
            int tiedN = 0; /* the rows scoring as a hit does: (row, first index of the score) */
            for (int i = 0; i < n; i++) { /* rows strictly between sorted hit scores */
                double s = scores[i];
                int lo = 0, hi = k;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (sorted[mid] < s) lo = mid + 1; else hi = mid;
                }
                if (lo < k && sorted[lo] == s) {
                    same[lo]++;
                    if (tiedN == tiedRow.length) {
                        tiedRow = Arrays.copyOf(tiedRow, tiedN * 2);
                        tiedAt = Arrays.copyOf(tiedAt, tiedN * 2);
                    }
                    tiedRow[tiedN] = i;
                    tiedAt[tiedN++] = lo;
                } else {
                    below[lo]++;
                }
            }
            long[] above = new long[k];
            long higher = 0;
            for (int j = k - 1; j >= 0; j--) { /* rows above sorted[j]: those past it */
                if (j + 1 < k && sorted[j + 1] != sorted[j]) higher += same[j + 1];
                higher += below[j + 1];
                above[j] = higher;
            }
            for (int j = 0; j < k; j++) {
                int at = Arrays.binarySearch(sorted, hitScores[j]);
                while (at > 0 && sorted[at - 1] == hitScores[j]) at--;
                /* same[] counts the rows of one score at its first index */
                long size = same[at];
                long greater = 0;
                if (size > 1) {
                    int row = hitRow[j];
                    for (int t = 0; t < tiedN; t++) {
                        int i = tiedRow[t];
                        if (tiedAt[t] == at && i != row
                            && compare(docBytes, docFrom[i], docLength[i], docBytes, docFrom[row],
                                       docLength[row]) > 0) {
                            greater++;
                        }
                    }
                }
                out.hit(hitJudgment[j], hitScores[j], above[at], size, greater);
            }
            if (first || last) {
                for (int i = 0; i < n; i++) out.boundaryRow(scores[i], docBytes, docFrom[i], docLength[i]);
            }
            out.fragment(q, n, top, bad, listedTwice(), (first ? 1 : 0) | (last ? 2 : 0));
            n = 0;
            bytesN = 0;
            k = 0;
        }

        @Override
        public Iterator<byte[]> call(Iterator<InternalRow> rows) {
            Out out = new Out();
            UTF8String current = null;
            boolean first = true;
            while (rows.hasNext()) {
                InternalRow row = rows.next();
                UTF8String q = row.getUTF8String(0);
                if (current == null || !q.equals(current)) {
                    finish(current, first, false, out);
                    first = current == null;
                    current = q.clone();
                }
                add(row.getUTF8String(1), row.getDouble(2));
            }
            finish(current, first, true, out);
            return Collections.singletonList(out.toBytes()).iterator();
        }
    }

    /**
     * {@link #run}, its partitions' arrays written to {@code path} on the driver, each
     * after its length (int64, little-endian): py4j hands a byte[] back to Python one
     * byte at a time, a file is read whole. Returns the number of partitions.
     */
    public static int runToFile(Dataset<Row> frame, byte[] queryBytes, byte[] queryOffsetBytes,
                                byte[] docBytes, byte[] docOffsetBytes, byte[] judgmentBytes,
                                String path) throws java.io.IOException {
        List<byte[]> parts = run(frame, queryBytes, queryOffsetBytes, docBytes, docOffsetBytes,
                                 judgmentBytes);
        try (java.io.OutputStream out = new java.io.BufferedOutputStream(
                 new java.io.FileOutputStream(path), 1 << 20)) {
            ByteBuffer length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            for (byte[] part : parts) {
                length.clear();
                out.write(length.putLong(part.length).array());
                out.write(part);
            }
        }
        return parts.size();
    }

    /** Little-endian int64s (py4j passes a byte[] argument whole, a long[] item by item). */
    static long[] longs(byte[] bytes) {
        long[] values = new long[bytes.length / 8];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values);
        return values;
    }

    /**
     * The pass over {@code frame} (columns q, d, s), given the judged pairs: query
     * and document ids as UTF-8 (offsets into one byte array each) and the judgment
     * number of each, the offsets and numbers as little-endian int64s. One byte array
     * per partition (see {@link Out#toBytes}).
     */
    public static List<byte[]> run(Dataset<Row> frame, byte[] queryBytes, byte[] queryOffsetBytes,
                                   byte[] docBytes, byte[] docOffsetBytes, byte[] judgmentBytes) {
        long[] queryOffsets = longs(queryOffsetBytes), docOffsets = longs(docOffsetBytes);
        long[] judgments = longs(judgmentBytes);
        int m = judgments.length;
        long[] queryHash = new long[m], docHash = new long[m];
        for (int i = 0; i < m; i++) {
            int from = (int) queryOffsets[i], to = (int) queryOffsets[i + 1];
            queryHash[i] = hash(queryBytes, Platform.BYTE_ARRAY_OFFSET + from, to - from);
            from = (int) docOffsets[i];
            to = (int) docOffsets[i + 1];
            docHash[i] = hash(docBytes, Platform.BYTE_ARRAY_OFFSET + from, to - from);
        }
        /* group by query (ids compared, not just hashes), then by document hash */
        Integer[] order = new Integer[m];
        for (int i = 0; i < m; i++) order[i] = i;
        Arrays.sort(order, (a, c) -> {
            int by = Long.compare(queryHash[a], queryHash[c]);
            if (by != 0) return by;
            by = compare(queryBytes, (int) queryOffsets[a], (int) (queryOffsets[a + 1] - queryOffsets[a]),
                         queryBytes, (int) queryOffsets[c], (int) (queryOffsets[c + 1] - queryOffsets[c]));
            return by != 0 ? by : Long.compare(docHash[a], docHash[c]);
        });
        Judged judged = new Judged();
        judged.docHash = new long[m];
        judged.judgment = new long[m];
        judged.docOffset = new int[m];
        judged.docLength = new int[m];
        judged.docBytes = docBytes;
        int queries = 0;
        for (int i = 0; i < m; i++) {
            int at = order[i];
            judged.docHash[i] = docHash[at];
            judged.judgment[i] = judgments[at];
            judged.docOffset[i] = (int) docOffsets[at];
            judged.docLength[i] = (int) (docOffsets[at + 1] - docOffsets[at]);
            if (i == 0 || queryHash[order[i - 1]] != queryHash[at]
                || compare(queryBytes, (int) queryOffsets[order[i - 1]],
                           (int) (queryOffsets[order[i - 1] + 1] - queryOffsets[order[i - 1]]),
                           queryBytes, (int) queryOffsets[at],
                           (int) (queryOffsets[at + 1] - queryOffsets[at])) != 0) {
                queries++;
            }
        }
        int cap = 64;
        while (cap < queries * 4) cap *= 2;
        judged.queryKeys = new long[cap];
        judged.queryStart = new int[cap];
        judged.queryEnd = new int[cap];
        judged.queryText = new byte[cap][];
        for (int i = 0; i < m; ) {
            int at = order[i];
            int from = (int) queryOffsets[at], to = (int) queryOffsets[at + 1];
            int j = i + 1;
            while (j < m && queryHash[order[j]] == queryHash[at]
                   && compare(queryBytes, (int) queryOffsets[order[j]],
                              (int) (queryOffsets[order[j] + 1] - queryOffsets[order[j]]),
                              queryBytes, from, to - from) == 0) {
                j++;
            }
            long key = queryHash[at] == 0 ? 1 : queryHash[at];
            int slot = (int) key & (cap - 1);
            while (judged.queryKeys[slot] != 0) slot = (slot + 1) & (cap - 1);
            judged.queryKeys[slot] = key;
            judged.queryStart[slot] = i;
            judged.queryEnd[slot] = j;
            judged.queryText[slot] = Arrays.copyOfRange(queryBytes, from, to);
            i = j;
        }
        return frame.queryExecution().toRdd().toJavaRDD().mapPartitions(new Pass(judged)).collect();
    }
}
