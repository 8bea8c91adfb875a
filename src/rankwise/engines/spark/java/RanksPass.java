package rankwise.jvm;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
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
 * The {@code jvm} strategy of rankwise's Spark engine: one pass per partition over a run
 * of (q string, d string, s double) rows grouped by query, which does all the per-row
 * work of ranking the judged documents. Compiled by rankwise at first use (see
 * {@code rankwise/engines/spark/jvm.py}), never shipped as a binary.
 *
 * <p>For each run of consecutive rows of one query (a fragment), it writes: the rows
 * kept (finite score, ids not null), the rows whose score is not a finite number,
 * whether a document is listed twice (a hash set, equal hashes confirmed on the ids),
 * whether the fragment is the first or the last of its partition, and whether its
 * query was seen before in the partition (the run is then not grouped). A fragment of
 * an unjudged query with nothing to report, away from the partition's ends, is only
 * counted (it and its rows). For each judged
 * document it finds (the query's own judged ids, found by a 64-bit hash and confirmed on
 * the ids): the judgment's index, its score, the rows scoring higher, the rows of its
 * score (itself included) and those of them whose id is greater in byte order
 * (trec_eval's order). The first and last fragment of a partition may be parts of a
 * query split across partitions: their rows (score and id) are written too, and the
 * driver merges them.
 *
 * <p>One byte array per partition, little-endian, columns one after another (see
 * {@link Out#toBytes}), so that the driver reads each with numpy without a loop. The
 * arrays come back to the driver and are written to a file there: py4j returns a
 * {@code byte[]} to Python one byte at a time, a file is read whole.
 */
public final class RanksPass {
    /** Spark's seed of {@code xxhash64}. */
    private static final long SEED = 42L;

    private RanksPass() {}

    static long hash(Object base, long offset, int length) {
        return XXH64.hashUnsafeBytes(base, offset, length, SEED);
    }

    /** Byte order of two ids (bytes compared unsigned), as Spark and Arrow compare UTF-8. */
    static int compare(byte[] a, int aFrom, int aLength, byte[] b, int bFrom, int bLength) {
        return Arrays.compareUnsigned(a, aFrom, aFrom + aLength, b, bFrom, bFrom + bLength);
    }

    /** The judged documents by query: per query a range of document hashes, sorted. */
    static final class Judged implements Serializable {
        private static final long serialVersionUID = 1L;
        long[] queryKeys; /* open addressing by query hash; 0 marks an empty slot */
        int[] queryStart, queryEnd; /* per slot: its range in the arrays below */
        byte[][] queryText; /* per slot: the query id, to confirm a hash */
        long[] docHash; /* sorted within each query's range */
        int[] judgment; /* the judgment's index in the caller's arrays */
        int[] docOffset, docLength; /* the id, in docBytes */
        byte[] docBytes;

        int slotOf(UTF8String q) {
            long key = hash(q.getBaseObject(), q.getBaseOffset(), q.numBytes());
            key = key == 0 ? 1 : key;
            int mask = queryKeys.length - 1;
            byte[] text = null;
            for (int at = (int) key & mask; queryKeys[at] != 0; at = (at + 1) & mask) {
                if (queryKeys[at] == key) {
                    if (text == null) text = q.getBytes();
                    if (Arrays.equals(queryText[at], text)) return at;
                }
            }
            return -1;
        }
    }

    /** Growable columns of one partition's output. */
    static final class Out {
        long nullQueries = 0, nullDocs = 0;
        /* fragments of unjudged queries away from the partition's ends, clean: counted only */
        long quietFragments = 0, quietRows = 0;
        long[] fRows = new long[64], fBad = new long[64], fTwice = new long[64], fFlags = new long[64];
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

        void fragment(UTF8String q, long rows, long bad, long twice, long flags) {
            if (f == fRows.length) {
                int n = f * 2;
                fRows = Arrays.copyOf(fRows, n);
                fBad = Arrays.copyOf(fBad, n);
                fTwice = Arrays.copyOf(fTwice, n);
                fFlags = Arrays.copyOf(fFlags, n);
                fQueryOffset = Arrays.copyOf(fQueryOffset, n + 1);
            }
            int length = q.numBytes();
            if (queryBytesN + length > queryBytes.length) {
                queryBytes = Arrays.copyOf(queryBytes, Math.max(queryBytes.length * 2, queryBytesN + length));
            }
            Platform.copyMemory(q.getBaseObject(), q.getBaseOffset(), queryBytes,
                                Platform.BYTE_ARRAY_OFFSET + queryBytesN, length);
            queryBytesN += length;
            fRows[f] = rows;
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

        /**
         * Header (10 int64: fragments, hits, boundary rows, bytes of query ids, bytes of
         * boundary ids, rows with a null query id, rows with a null document id, quiet
         * fragments and their rows, 0), then
         * per fragment rows, bad, twice, flags (int64) and the query ids' offsets (int64,
         * one more) and bytes (padded to 8); per hit fragment, judgment, above, size,
         * greater (int64) and score (float64); per boundary row fragment (int64), score
         * (float64), the ids' offsets (int64, one more) and bytes.
         */
        byte[] toBytes() {
            int size = 10 * 8 + 8 * (5 * f + 1) + padded(queryBytesN) + 8 * 6 * h
                + 8 * (3 * b + 1) + bBytesN;
            ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            out.putLong(f).putLong(h).putLong(b).putLong(queryBytesN).putLong(bBytesN);
            out.putLong(nullQueries).putLong(nullDocs).putLong(quietFragments).putLong(quietRows);
            out.putLong(0);
            for (long[] column : new long[][] {fRows, fBad, fTwice, fFlags}) {
                for (int i = 0; i < f; i++) out.putLong(column[i]);
            }
            for (int i = 0; i <= f; i++) out.putLong(fQueryOffset[i]);
            out.put(queryBytes, 0, queryBytesN);
            out.position(out.position() + padded(queryBytesN) - queryBytesN);
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

    /** One partition's pass. */
    static final class Pass implements FlatMapFunction<Iterator<InternalRow>, byte[]> {
        private static final long serialVersionUID = 1L;
        private final Judged judged;

        Pass(Judged judged) {
            this.judged = judged;
        }

        /* The current fragment's rows: hash, score and id of each. */
        private transient long[] hashes;
        private transient double[] scores;
        private transient int[] docFrom, docLength;
        private transient byte[] docBytes;
        private transient int n, bytesN;
        /* Its judged documents: row and judgment. */
        private transient int[] hitRow, hitJudgment;
        private transient int k;
        /* Scratch: the hash set of listedTwice, the tie groups of finish. */
        private transient long[] setHash;
        private transient int[] setRow, setStamp;
        private transient int generation;
        private transient int[] tiedRow, tiedLevel, groupRows, position, scratch;
        /* The partition's queries so far (a hash set, ids kept to confirm a hash). */
        private transient long[] seenHash;
        private transient int[] seenFrom, seenLength;
        private transient byte[] seenBytes;
        private transient int seenN, seenBytesN;
        private transient UTF8String firstQuery;

        private void allocate() {
            hashes = new long[1024];
            scores = new double[1024];
            docFrom = new int[1024];
            docLength = new int[1024];
            docBytes = new byte[8192];
            hitRow = new int[64];
            hitJudgment = new int[64];
            setHash = new long[4096];
            setRow = new int[4096];
            setStamp = new int[4096];
            tiedRow = new int[256];
            tiedLevel = new int[256];
            groupRows = new int[256];
            position = new int[1024];
            scratch = new int[256];
            n = bytesN = k = generation = 0;
            seenHash = new long[1024];
            seenFrom = new int[1024];
            seenLength = new int[1024];
            seenBytes = new byte[8192];
            seenN = seenBytesN = 0;
            firstQuery = null;
        }

        /** Whether query {@code q} was seen before in this partition (and remember it). */
        private boolean seenBefore(UTF8String q) {
            if (2 * (seenN + 1) > seenHash.length) {
                long[] hashes = seenHash;
                int[] from = seenFrom, length = seenLength;
                int capacity = hashes.length * 2;
                seenHash = new long[capacity];
                seenFrom = new int[capacity];
                seenLength = new int[capacity];
                for (int at = 0; at < hashes.length; at++) {
                    if (length[at] != 0) place(hashes[at], from[at], length[at]);
                }
            }
            long key = hash(q.getBaseObject(), q.getBaseOffset(), q.numBytes());
            int length = q.numBytes();
            int mask = seenHash.length - 1;
            int at = (int) (key ^ (key >>> 32)) & mask;
            byte[] text = null;
            for (; seenLength[at] != 0; at = (at + 1) & mask) {
                if (seenHash[at] == key) {
                    if (text == null) text = q.getBytes();
                    if (compare(seenBytes, seenFrom[at] - 1, seenLength[at] - 1, text, 0, length) == 0) {
                        return true;
                    }
                }
            }
            if (seenBytesN + length > seenBytes.length) {
                seenBytes = Arrays.copyOf(seenBytes, Math.max(seenBytes.length * 2, seenBytesN + length));
            }
            Platform.copyMemory(q.getBaseObject(), q.getBaseOffset(), seenBytes,
                                Platform.BYTE_ARRAY_OFFSET + seenBytesN, length);
            /* stored shifted by one, so that 0 marks an empty slot (ids may be empty) */
            place(key, seenBytesN + 1, length + 1);
            seenBytesN += length;
            seenN++;
            return false;
        }

        private void place(long key, int from, int length) {
            int mask = seenHash.length - 1;
            int at = (int) (key ^ (key >>> 32)) & mask;
            while (seenLength[at] != 0) at = (at + 1) & mask;
            seenHash[at] = key;
            seenFrom[at] = from;
            seenLength[at] = length;
        }

        private void add(UTF8String d, double s) {
            if (n == hashes.length) {
                int grown = n * 2;
                hashes = Arrays.copyOf(hashes, grown);
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

        private boolean sameId(int row, int otherRow) {
            return compare(docBytes, docFrom[row], docLength[row], docBytes, docFrom[otherRow],
                           docLength[otherRow]) == 0;
        }

        /** The judged documents among the fragment's rows (hash found, id confirmed). */
        private void findJudged(int slot) {
            if (slot < 0) return;
            int start = judged.queryStart[slot], end = judged.queryEnd[slot];
            for (int row = 0; row < n; row++) {
                int at = Arrays.binarySearch(judged.docHash, start, end, hashes[row]);
                if (at < 0) continue;
                while (at > start && judged.docHash[at - 1] == hashes[row]) at--;
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

        /** 1 when a document is listed twice in the fragment (equal hashes confirmed on ids). */
        private long listedTwice() {
            if (setHash.length < 2 * n) {
                int capacity = setHash.length;
                while (capacity < 2 * n) capacity *= 2;
                setHash = new long[capacity];
                setRow = new int[capacity];
                setStamp = new int[capacity];
                generation = 0;
            }
            generation++;
            int mask = setHash.length - 1;
            for (int i = 0; i < n; i++) {
                long h = hashes[i];
                int at = (int) (h ^ (h >>> 32)) & mask;
                while (setStamp[at] == generation) {
                    if (setHash[at] == h && sameId(i, setRow[at])) return 1;
                    at = (at + 1) & mask;
                }
                setStamp[at] = generation;
                setHash[at] = h;
                setRow[at] = i;
            }
            return 0;
        }

        /** Sorts rows[from, to) by id, byte order (a merge sort: stable, no boxing). */
        private void sortById(int[] rows, int from, int to) {
            if (to - from < 12) {
                for (int i = from + 1; i < to; i++) {
                    int row = rows[i], j = i - 1;
                    while (j >= from && compare(docBytes, docFrom[rows[j]], docLength[rows[j]],
                                                docBytes, docFrom[row], docLength[row]) > 0) {
                        rows[j + 1] = rows[j];
                        j--;
                    }
                    rows[j + 1] = row;
                }
                return;
            }
            int middle = (from + to) >>> 1;
            sortById(rows, from, middle);
            sortById(rows, middle, to);
            if (scratch.length < to - from) scratch = new int[Math.max(to - from, scratch.length * 2)];
            int i = from, j = middle, at = 0;
            while (i < middle && j < to) {
                int a = rows[i], c = rows[j];
                if (compare(docBytes, docFrom[a], docLength[a], docBytes, docFrom[c], docLength[c]) <= 0) {
                    scratch[at++] = a;
                    i++;
                } else {
                    scratch[at++] = c;
                    j++;
                }
            }
            while (i < middle) scratch[at++] = rows[i++];
            while (j < to) scratch[at++] = rows[j++];
            System.arraycopy(scratch, 0, rows, from, at);
        }

        /**
         * The first of the {@code count} ascending levels that is not below {@code s}
         * (compared with {@code <}, so -0.0 and 0.0 tie, as they do in numpy).
         */
        private static int levelOf(double[] levels, int count, double s) {
            int lo = 0, hi = count;
            while (lo < hi) {
                int middle = (lo + hi) >>> 1;
                if (levels[middle] < s) lo = middle + 1; else hi = middle;
            }
            return lo;
        }

        /**
         * The fragment ends: its hits' counts, its own line, its rows if at an edge. A
         * clean fragment of an unjudged query away from the partition's ends is only
         * counted, so that what the driver receives grows with the judged queries, not
         * with all of them; a query seen before in the partition is flagged (4).
         */
        private void finish(UTF8String q, long bad, boolean first, boolean last, Out out) {
            int slot = judged.slotOf(q);
            /* seen before: the run is not grouped, unless this is the partition's last
               fragment and that its first (both written whole, merged by the driver) */
            boolean again = seenBefore(q) && !(last && q.equals(firstQuery));
            if (first) firstQuery = q.clone();
            long twice = listedTwice();
            if (slot < 0 && !first && !last && !again && bad == 0 && twice == 0) {
                out.quietFragments++;
                out.quietRows += n;
                n = 0;
                bytesN = 0;
                return;
            }
            findJudged(slot);
            /* the distinct scores of the hits, ascending: the levels */
            double[] levels = new double[k];
            for (int j = 0; j < k; j++) levels[j] = scores[hitRow[j]];
            Arrays.sort(levels);
            int count = 0;
            for (int j = 0; j < k; j++) {
                if (count == 0 || levels[count - 1] != levels[j]) levels[count++] = levels[j];
            }
            /* per row: the level of its score, or the gap below the next level up */
            long[] below = new long[count + 1], same = new long[count];
            int tiedN = 0;
            for (int i = 0; i < n; i++) {
                double s = scores[i];
                int lo = levelOf(levels, count, s);
                if (lo < count && levels[lo] == s) {
                    same[lo]++;
                    if (tiedN == tiedRow.length) {
                        tiedRow = Arrays.copyOf(tiedRow, tiedN * 2);
                        tiedLevel = Arrays.copyOf(tiedLevel, tiedN * 2);
                    }
                    tiedRow[tiedN] = i;
                    tiedLevel[tiedN++] = lo;
                } else {
                    below[lo]++;
                }
            }
            long[] above = new long[count];
            long higher = 0;
            for (int level = count - 1; level >= 0; level--) {
                higher += below[level + 1] + (level + 1 < count ? same[level + 1] : 0);
                above[level] = higher;
            }
            /* the rows of each level with a tie, sorted by id: a hit's position among them */
            int[] start = new int[count + 1];
            for (int level = 0; level < count; level++) start[level + 1] = start[level] + (int) same[level];
            if (groupRows.length < tiedN) groupRows = new int[Math.max(tiedN, groupRows.length * 2)];
            int[] fill = Arrays.copyOf(start, count);
            for (int t = 0; t < tiedN; t++) groupRows[fill[tiedLevel[t]]++] = tiedRow[t];
            if (position.length < n) position = new int[Math.max(n, position.length * 2)];
            for (int level = 0; level < count; level++) {
                if (same[level] > 1) {
                    sortById(groupRows, start[level], start[level + 1]);
                    for (int at = start[level]; at < start[level + 1]; at++) {
                        position[groupRows[at]] = at - start[level];
                    }
                }
            }
            for (int j = 0; j < k; j++) {
                int row = hitRow[j];
                double s = scores[row];
                int level = levelOf(levels, count, s);
                long size = same[level];
                long greater = size > 1 ? size - 1 - position[row] : 0;
                out.hit(hitJudgment[j], s, above[level], size, greater);
            }
            if (first || last) {
                for (int i = 0; i < n; i++) out.boundaryRow(scores[i], docBytes, docFrom[i], docLength[i]);
            }
            out.fragment(q, n, bad, twice, (first ? 1 : 0) | (last ? 2 : 0) | (again ? 4 : 0));
            n = 0;
            bytesN = 0;
            k = 0;
        }

        @Override
        public Iterator<byte[]> call(Iterator<InternalRow> rows) {
            allocate();
            Out out = new Out();
            UTF8String current = null;
            long bad = 0;
            boolean first = true;
            while (rows.hasNext()) {
                InternalRow row = rows.next();
                if (row.isNullAt(0)) {
                    out.nullQueries++;
                    continue;
                }
                UTF8String q = row.getUTF8String(0);
                if (current == null || !q.equals(current)) {
                    if (current != null) {
                        finish(current, bad, first, false, out);
                        first = false;
                    }
                    current = q.clone();
                    bad = 0;
                }
                if (row.isNullAt(1)) {
                    out.nullDocs++;
                    continue;
                }
                double s = row.isNullAt(2) ? Double.NaN : row.getDouble(2);
                if (Double.isNaN(s) || Double.isInfinite(s)) {
                    bad++;
                    continue;
                }
                add(row.getUTF8String(1), s);
            }
            if (current != null) finish(current, bad, first, true, out);
            return Collections.singletonList(out.toBytes()).iterator();
        }
    }

    /** Little-endian int64s (py4j passes a byte[] argument whole, a long[] item by item). */
    static long[] longs(byte[] bytes) {
        long[] values = new long[bytes.length / 8];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values);
        return values;
    }

    static Judged judged(byte[] queryBytes, long[] queryOffsets, byte[] docBytes, long[] docOffsets) {
        int m = queryOffsets.length - 1;
        long[] queryHash = new long[m], docHash = new long[m];
        for (int i = 0; i < m; i++) {
            int from = (int) queryOffsets[i], to = (int) queryOffsets[i + 1];
            queryHash[i] = hash(queryBytes, Platform.BYTE_ARRAY_OFFSET + from, to - from);
            from = (int) docOffsets[i];
            to = (int) docOffsets[i + 1];
            docHash[i] = hash(docBytes, Platform.BYTE_ARRAY_OFFSET + from, to - from);
        }
        /* by query (ids compared, not only hashes), then by document hash */
        Integer[] order = new Integer[m];
        for (int i = 0; i < m; i++) order[i] = i;
        Arrays.sort(order, (a, c) -> {
            int by = Long.compare(queryHash[a], queryHash[c]);
            if (by == 0) by = compareQueries(queryBytes, queryOffsets, a, c);
            return by != 0 ? by : Long.compare(docHash[a], docHash[c]);
        });
        Judged judged = new Judged();
        judged.docHash = new long[m];
        judged.judgment = new int[m];
        judged.docOffset = new int[m];
        judged.docLength = new int[m];
        judged.docBytes = docBytes;
        int queries = 0;
        for (int i = 0; i < m; i++) {
            int at = order[i];
            judged.docHash[i] = docHash[at];
            judged.judgment[i] = at;
            judged.docOffset[i] = (int) docOffsets[at];
            judged.docLength[i] = (int) (docOffsets[at + 1] - docOffsets[at]);
            if (i == 0 || compareQueries(queryBytes, queryOffsets, order[i - 1], at) != 0) queries++;
        }
        int capacity = 64;
        while (capacity < queries * 4) capacity *= 2;
        judged.queryKeys = new long[capacity];
        judged.queryStart = new int[capacity];
        judged.queryEnd = new int[capacity];
        judged.queryText = new byte[capacity][];
        for (int i = 0; i < m; ) {
            int at = order[i];
            int j = i + 1;
            while (j < m && compareQueries(queryBytes, queryOffsets, order[j], at) == 0) j++;
            long key = queryHash[at] == 0 ? 1 : queryHash[at];
            int slot = (int) key & (capacity - 1);
            while (judged.queryKeys[slot] != 0) slot = (slot + 1) & (capacity - 1);
            judged.queryKeys[slot] = key;
            judged.queryStart[slot] = i;
            judged.queryEnd[slot] = j;
            judged.queryText[slot] = Arrays.copyOfRange(queryBytes, (int) queryOffsets[at],
                                                        (int) queryOffsets[at + 1]);
            i = j;
        }
        return judged;
    }

    private static int compareQueries(byte[] bytes, long[] offsets, int a, int c) {
        return compare(bytes, (int) offsets[a], (int) (offsets[a + 1] - offsets[a]),
                       bytes, (int) offsets[c], (int) (offsets[c + 1] - offsets[c]));
    }

    /**
     * The pass over {@code frame} (columns q string, d string, s double), given the judged
     * pairs: their query and document ids as UTF-8, each an array of bytes and the
     * offsets into it as little-endian int64 (the judgment of pair {@code i} is {@code i}).
     * The partitions' arrays are written to {@code path}, each after its length (int64,
     * little-endian). Returns the number of partitions.
     */
    public static int run(Dataset<Row> frame, byte[] queryBytes, byte[] queryOffsets,
                          byte[] docBytes, byte[] docOffsets, String path) throws IOException {
        Judged judged = judged(queryBytes, longs(queryOffsets), docBytes, longs(docOffsets));
        List<byte[]> parts = frame.queryExecution().toRdd().toJavaRDD()
            .mapPartitions(new Pass(judged)).collect();
        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(path), 1 << 20)) {
            ByteBuffer length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            for (byte[] part : parts) {
                length.clear();
                out.write(length.putLong(part.length).array());
                out.write(part);
            }
        }
        return parts.size();
    }
}
