package rwprobe;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.XXH64;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One pass over a run of (q, d, s) rows grouped by query, per partition, over
 * Spark's internal rows: per query, its rows counted, a document listed twice
 * found (its ids' 64-bit hashes sorted), its judged documents found among the
 * query's own judged hashes (a small sorted table per query), and for each
 * hit the rows of its query scoring above it counted. What a `ranks` written
 * as JVM code would do, without ties, boundary queries or output: a probe of
 * its cost, not part of rankwise.
 */
public final class OnePass {
    private static final long SEED = 42L; /* Spark's xxhash64 seed */

    private OnePass() {}

    static long hash(UTF8String text, long seed) {
        return XXH64.hashUnsafeBytes(text.getBaseObject(), text.getBaseOffset(), text.numBytes(), seed);
    }

    /** The per-partition pass; with {@code readOnly}, rows are only read (the floor). */
    static final class Pass implements FlatMapFunction<Iterator<InternalRow>, long[]> {
        private static final long serialVersionUID = 1L;
        private final long[] queryKeys; /* open addressing: a query's hash, or 0 */
        private final long[][] judgedOf; /* per slot: the query's judged document hashes, sorted */
        private final boolean readOnly;

        Pass(long[] queryKeys, long[][] judgedOf, boolean readOnly) {
            this.queryKeys = queryKeys;
            this.judgedOf = judgedOf;
            this.readOnly = readOnly;
        }

        private long[] judged(long queryHash) {
            int mask = queryKeys.length - 1;
            for (int at = (int) queryHash & mask; queryKeys[at] != 0; at = (at + 1) & mask) {
                if (queryKeys[at] == queryHash) {
                    return judgedOf[at];
                }
            }
            return new long[0];
        }

        @Override
        public Iterator<long[]> call(Iterator<InternalRow> rows) {
            long queries = 0, total = 0, twice = 0, hits = 0, above = 0;
            if (readOnly) {
                long bytes = 0;
                double sum = 0;
                while (rows.hasNext()) {
                    InternalRow row = rows.next();
                    bytes += row.getUTF8String(0).numBytes() + row.getUTF8String(1).numBytes();
                    sum += row.getDouble(2);
                    total++;
                }
                long[] out = {bytes, total, Double.isNaN(sum) ? 1 : 0, 0, 0};
                return Collections.singletonList(out).iterator();
            }
            long[] hashes = new long[1024];
            double[] scores = new double[1024];
            double[] hitScores = new double[64];
            long[] mine = new long[0];
            int n = 0, k = 0;
            UTF8String current = null;
            while (rows.hasNext()) {
                InternalRow row = rows.next();
                UTF8String q = row.getUTF8String(0);
                if (current == null || !q.equals(current)) {
                    if (current != null) {
                        twice += listedTwice(hashes, n);
                        above += rowsAbove(scores, n, hitScores, k);
                        queries++;
                    }
                    current = q.clone();
                    mine = judged(hash(q, SEED));
                    n = 0;
                    k = 0;
                }
                long h = hash(row.getUTF8String(1), SEED);
                double s = row.getDouble(2);
                if (n == hashes.length) {
                    hashes = Arrays.copyOf(hashes, n * 2);
                    scores = Arrays.copyOf(scores, n * 2);
                }
                hashes[n] = h;
                scores[n] = s;
                n++;
                if (mine.length > 0 && Arrays.binarySearch(mine, h) >= 0) {
                    if (k == hitScores.length) {
                        hitScores = Arrays.copyOf(hitScores, k * 2);
                    }
                    hitScores[k++] = s;
                    hits++;
                }
                total++;
            }
            if (current != null) {
                twice += listedTwice(hashes, n);
                above += rowsAbove(scores, n, hitScores, k);
                queries++;
            }
            return Collections.singletonList(new long[] {queries, total, twice, hits, above}).iterator();
        }

        private static int listedTwice(long[] hashes, int n) {
            Arrays.sort(hashes, 0, n);
            for (int i = 1; i < n; i++) {
                if (hashes[i] == hashes[i - 1]) {
                    return 1;
                }
            }
            return 0;
        }

        /* For each hit, the rows scoring above it (summed): each row found among the sorted hits. */
        private static long rowsAbove(double[] scores, int n, double[] hits, int k) {
            if (k == 0) {
                return 0;
            }
            Arrays.sort(hits, 0, k);
            long above = 0;
            for (int i = 0; i < n; i++) {
                int lo = 0, hi = k;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (hits[mid] < scores[i]) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                above += lo;
            }
            return above;
        }
    }

    /**
     * The pass over {@code frame} (columns q, d, s in this order), given the judged
     * (query, document) pairs as xxhash64 of each id; summed over partitions:
     * {queries, rows, queries with a document twice, hits, rows above hits}
     * ({bytes of ids, rows, 0, 0, 0} with {@code readOnly}).
     */
    public static long[] run(Dataset<Row> frame, long[] queryHashes, long[] docHashes, boolean readOnly) {
        Map<Long, long[]> byQuery = new HashMap<>();
        for (int i = 0; i < queryHashes.length; i++) {
            long[] old = byQuery.getOrDefault(queryHashes[i], new long[0]);
            long[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = docHashes[i];
            byQuery.put(queryHashes[i], grown);
        }
        int cap = 64;
        while (cap < byQuery.size() * 4) {
            cap *= 2;
        }
        long[] keys = new long[cap];
        long[][] judgedOf = new long[cap][];
        for (Map.Entry<Long, long[]> entry : byQuery.entrySet()) {
            int at = (int) (long) entry.getKey() & (cap - 1);
            while (keys[at] != 0) {
                at = (at + 1) & (cap - 1);
            }
            keys[at] = entry.getKey();
            judgedOf[at] = entry.getValue();
            Arrays.sort(judgedOf[at]);
        }
        List<long[]> parts = frame.queryExecution().toRdd().toJavaRDD()
            .mapPartitions(new Pass(keys, judgedOf, readOnly)).collect();
        long[] sum = new long[5];
        for (long[] part : parts) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += part[i];
            }
        }
        return sum;
    }
}
