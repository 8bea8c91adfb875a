package rankwise.jvm;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import org.apache.spark.HashPartitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.rdd.InputFileBlockHolder;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.XXH64;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Repartition;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.View;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.array.ByteArrayMethods;
import org.apache.spark.unsafe.types.UTF8String;

import scala.Tuple2;

/**
 * The {@code jvm} strategy of rankwise's Spark engine: one pass per partition over a run of
 * (q string, d string, s double[, p long]) rows, in any order, which does all the per-row work
 * of ranking the judged documents. Built by rankwise (see
 * {@code rankwise/engines/spark/jar.py}): shipped compiled in the package, this source beside it.
 *
 * <p>A partition's rows are read into a window of at most {@code BUFFER_ROWS} rows; a full
 * window (and the partition's end) is grouped by query, and each query's rows in it form a
 * piece. A run grouped by query gives one piece per query (two for a query cut by a window or a
 * partition end); a shuffled run gives a piece per query and partition. For each piece it
 * writes: its rows (finite score, ids not null), the rows whose score is not a finite number,
 * whether a document is listed twice in it (a hash set, equal hashes confirmed on the ids), a
 * 64-bit hash of its query; and for each judged document found (the query's own judged ids,
 * found by a hash and confirmed on the ids): the judgment's index, its score, its position, the
 * piece's rows scoring higher, the rows of its score (itself included), those of them whose id
 * is greater in byte order (trec_eval's order) and those read before it (input order). A piece
 * of an unjudged query with nothing to report is only counted (its hash and rows).
 *
 * <p>A query in several pieces is merged by the driver. The pieces most likely to be parts of
 * one (those at the ends of a partition, of a window, or next to a change of input file: a
 * Parquet file cut inside a query, packed with others into a partition) are written whole
 * (score, position and id of each row) when they fit {@code SHIP_ROWS}, the partition's share of
 * what the driver takes; the driver recounts their hits over all their rows. The other split
 * queries are recounted by {@link #recount}, a second pass that sums each hit's counts over
 * every partition: nothing about one query ever needs more than a bounded slice of its rows in
 * one place.
 *
 * <p>The position of a row is {@code (partition << 33) + its index in the partition} (what
 * Spark's {@code monotonically_increasing_id()} gives), or the fourth column when the driver
 * gives one (a run shuffled by query keeps the positions it had before the shuffle).
 *
 * <p>One byte array per partition, little-endian, columns one after another (see
 * {@link Out#toBytes}), so that the driver reads each with numpy without a loop. The arrays
 * come back to the driver and are written to a file there: py4j returns a {@code byte[]} to
 * Python one byte at a time, a file is read whole.
 */
public final class RanksPass {
    /** Spark's seed of {@code xxhash64}. */
    private static final long SEED = 42L;

    /** The settings of a pass: the indices of the little-endian int64s the driver sends. */
    static final int BUFFER_ROWS = 0, SHIP_ROWS = 1, FLOAT32 = 2, DROP_SELF = 3, POSITIONS = 4;

    private RanksPass() {}

    static long hash(Object base, long offset, int length) {
        return XXH64.hashUnsafeBytes(base, offset, length, SEED);
    }

    static long hash(UTF8String text) {
        return hash(text.getBaseObject(), text.getBaseOffset(), text.numBytes());
    }

    /** Byte order of two ids (bytes compared unsigned), as Spark and Arrow compare UTF-8. */
    static int compare(byte[] a, int aFrom, int aLength, byte[] b, int bFrom, int bLength) {
        return Arrays.compareUnsigned(a, aFrom, aFrom + aLength, b, bFrom, bFrom + bLength);
    }

    /** Whether {@code text} is the {@code length} bytes of {@code bytes} from {@code from}. */
    static boolean same(UTF8String text, byte[] bytes, int from, int length) {
        return text.numBytes() == length && ByteArrayMethods.arrayEquals(
            text.getBaseObject(), text.getBaseOffset(), bytes, Platform.BYTE_ARRAY_OFFSET + from,
            length);
    }

    /** The bytes of {@code text} at {@code into[at..]}. */
    static void copy(UTF8String text, byte[] into, int at) {
        Platform.copyMemory(text.getBaseObject(), text.getBaseOffset(), into,
                            Platform.BYTE_ARRAY_OFFSET + at, text.numBytes());
    }

    // ---------------------------------------------------------------- growable columns

    /** A growable column of int64. */
    static final class Longs {
        long[] values;
        int size;

        Longs(int capacity) {
            values = new long[capacity];
        }

        void add(long value) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2 + 16);
            values[size++] = value;
        }

        void write(ByteBuffer out) {
            for (int i = 0; i < size; i++) out.putLong(values[i]);
        }
    }

    /** A growable column of float64. */
    static final class Doubles {
        double[] values;
        int size;

        Doubles(int capacity) {
            values = new double[capacity];
        }

        void add(double value) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2 + 16);
            values[size++] = value;
        }

        void write(ByteBuffer out) {
            for (int i = 0; i < size; i++) out.putDouble(values[i]);
        }
    }

    /** A growable column of int32. */
    static final class Ints {
        int[] values;
        int size;

        Ints(int capacity) {
            values = new int[capacity];
        }

        void add(int value) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2 + 16);
            values[size++] = value;
        }
    }

    /** Growable bytes: strings one after another. */
    static final class Bytes {
        byte[] values;
        int size;

        Bytes(int capacity) {
            values = new byte[capacity];
        }

        private void reserve(int length) {
            if (size + length > values.length) {
                values = Arrays.copyOf(values, Math.max(values.length * 2, size + length));
            }
        }

        /** Appends {@code text}; returns where it starts. */
        int add(UTF8String text) {
            int length = text.numBytes();
            reserve(length);
            copy(text, values, size);
            int at = size;
            size += length;
            return at;
        }

        int add(byte[] bytes, int from, int length) {
            reserve(length);
            System.arraycopy(bytes, from, values, size, length);
            int at = size;
            size += length;
            return at;
        }
    }

    /** Strings written as their offsets (int64, one more than strings) and their bytes. */
    static final class Strings {
        final Longs offsets = new Longs(64);
        final Bytes bytes = new Bytes(1024);

        Strings() {
            offsets.add(0);
        }

        void clear() {
            offsets.size = 1;
            bytes.size = 0;
        }

        void add(UTF8String text) {
            bytes.add(text);
            offsets.add(bytes.size);
        }

        void add(byte[] from, int at, int length) {
            bytes.add(from, at, length);
            offsets.add(bytes.size);
        }

        /** Offsets, then the bytes padded to 8. */
        void write(ByteBuffer out) {
            offsets.write(out);
            out.put(bytes.values, 0, bytes.size);
            out.position(out.position() + padded(bytes.size) - bytes.size);
        }

        int size() {
            return 8 * offsets.size + padded(bytes.size);
        }
    }

    static int padded(int n) {
        return (n + 7) & ~7;
    }

    // ---------------------------------------------------------------- the judgments

    /** The judged documents by query: per query a range of document hashes, sorted. */
    static final class Judged implements Serializable {
        private static final long serialVersionUID = 2L;
        long[] queryKeys; /* open addressing by query hash; 0 marks an empty slot */
        int[] queryStart, queryEnd; /* per slot: its range in the arrays below */
        byte[][] queryText; /* per slot: the query id, to confirm a hash */
        long[] docHash; /* sorted within each query's range */
        int[] judgment; /* the judgment's index in the caller's arrays */
        int[] docOffset, docLength; /* the id, in docBytes */
        byte[] docBytes;

        int slotOf(UTF8String q, long queryHash) {
            long key = queryHash == 0 ? 1 : queryHash;
            int mask = queryKeys.length - 1;
            for (int at = (int) key & mask; queryKeys[at] != 0; at = (at + 1) & mask) {
                if (queryKeys[at] == key && same(q, queryText[at], 0, queryText[at].length)) {
                    return at;
                }
            }
            return -1;
        }
    }

    /** Little-endian int64s (py4j passes a byte[] argument whole, a long[] item by item). */
    static long[] longs(byte[] bytes) {
        long[] values = new long[bytes.length / 8];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values);
        return values;
    }

    static double[] doubles(byte[] bytes) {
        double[] values = new double[bytes.length / 8];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(values);
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
            if (by == 0) by = compareIds(queryBytes, queryOffsets, a, c);
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
            if (i == 0 || compareIds(queryBytes, queryOffsets, order[i - 1], at) != 0) queries++;
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
            while (j < m && compareIds(queryBytes, queryOffsets, order[j], at) == 0) j++;
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

    static int compareIds(byte[] bytes, long[] offsets, int a, int c) {
        return compare(bytes, (int) offsets[a], (int) (offsets[a + 1] - offsets[a]),
                       bytes, (int) offsets[c], (int) (offsets[c + 1] - offsets[c]));
    }

    // ---------------------------------------------------------------- a partition's output

    /** Growable columns of one partition's output. */
    static final class Out {
        int partition;
        long rowsRead, nullQueries, nullDocs, quietRows;
        /* the first problem's position (-1: none): a null query id, a null document id, a
           score that is not a finite number (and that row's score) */
        long nullQueryAt = -1, nullDocAt = -1, badAt = -1;
        double badScore;
        final Strings nullDocQuery = new Strings(), badQuery = new Strings(), badDoc = new Strings();
        /* pieces written: rows, bad, twice, flags (1: its rows are written, 2: at an edge),
           the query's hash, the positions of a document listed twice (first, second) */
        final Longs pRows = new Longs(64), pBad = new Longs(64), pTwice = new Longs(64);
        final Longs pFlags = new Longs(64), pHash = new Longs(64);
        final Longs pFirst = new Longs(64), pSecond = new Longs(64);
        final Strings pQuery = new Strings(), pDoc = new Strings();
        /* pieces only counted: the query's hash, the rows */
        final Longs quietHash = new Longs(64), quietCount = new Longs(64);
        /* hits */
        final Longs hPiece = new Longs(256), hJudgment = new Longs(256), hAbove = new Longs(256);
        final Longs hSize = new Longs(256), hGreater = new Longs(256), hEarlier = new Longs(256);
        final Longs hPosition = new Longs(256);
        final Doubles hScore = new Doubles(256);
        /* rows written whole: piece, score, position, id */
        final Longs rPiece = new Longs(256), rPosition = new Longs(256);
        final Doubles rScore = new Doubles(256);
        final Strings rDoc = new Strings();

        int pieces() {
            return pRows.size;
        }

        static final int HEADER = 16;

        /**
         * Header (16 int64: partition, rows read, pieces, hits, rows written, quiet pieces,
         * rows with a null query id, with a null document id, rows of quiet pieces, the
         * positions of the first null query id, null document id and bad score, the bad score
         * (float64), and whether the three problem rows' strings follow (0/1), 0, 0), then per
         * piece rows, bad, twice, flags, hash, first, second (int64), its query's id
         * (strings: offsets, bytes padded to 8) and the document listed twice (strings, empty
         * when none); per quiet piece hash and rows; per hit piece,
         * judgment, above, size, greater, earlier, position (int64) and score (float64); per row
         * written piece, position (int64), score (float64) and its id (strings); then the query
         * of the null document id, the query and document of the bad score (strings).
         */
        byte[] toBytes() {
            int f = pieces(), q = quietHash.size, h = hJudgment.size, b = rPiece.size;
            int size = 8 * HEADER + 8 * 7 * f + pQuery.size() + pDoc.size() + 8 * 2 * q + 8 * 8 * h
                + 8 * 3 * b + rDoc.size() + nullDocQuery.size() + badQuery.size() + badDoc.size();
            ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            out.putLong(partition).putLong(rowsRead).putLong(f).putLong(h).putLong(b).putLong(q);
            out.putLong(nullQueries).putLong(nullDocs).putLong(quietRows);
            out.putLong(nullQueryAt).putLong(nullDocAt).putLong(badAt).putDouble(badScore);
            out.putLong(0).putLong(0).putLong(0);
            for (Longs column : new Longs[] {pRows, pBad, pTwice, pFlags, pHash, pFirst, pSecond}) {
                column.write(out);
            }
            pQuery.write(out);
            pDoc.write(out);
            quietHash.write(out);
            quietCount.write(out);
            for (Longs column : new Longs[] {hPiece, hJudgment, hAbove, hSize, hGreater, hEarlier,
                                             hPosition}) {
                column.write(out);
            }
            hScore.write(out);
            rPiece.write(out);
            rPosition.write(out);
            rScore.write(out);
            rDoc.write(out);
            nullDocQuery.write(out);
            badQuery.write(out);
            badDoc.write(out);
            return out.array();
        }
    }

    // ---------------------------------------------------------------- a window of rows

    /** The rows of a partition read since the last grouping, and their queries. */
    static final class Window {
        /* rows */
        final Longs hash = new Longs(1024), position = new Longs(1024);
        final Doubles score = new Doubles(1024);
        final Ints docFrom = new Ints(1024), docLength = new Ints(1024), query = new Ints(1024);
        final Bytes docBytes = new Bytes(8192);
        /* queries: a hash table of (index + 1), and per query its id, hash, judged slot,
           rows, bad scores and whether it sits at an edge */
        int[] table = new int[256];
        final Longs qHash = new Longs(64);
        final Ints qFrom = new Ints(64), qLength = new Ints(64), qSlot = new Ints(64);
        final Ints qRows = new Ints(64), qBad = new Ints(64), qEdge = new Ints(64);
        final Bytes qBytes = new Bytes(1024);

        int rows() {
            return hash.size;
        }

        int queries() {
            return qHash.size;
        }

        void clear() {
            hash.size = position.size = score.size = 0;
            docFrom.size = docLength.size = query.size = docBytes.size = 0;
            Arrays.fill(table, 0);
            qHash.size = qFrom.size = qLength.size = qSlot.size = 0;
            qRows.size = qBad.size = qEdge.size = qBytes.size = 0;
        }

        /** The index of query {@code q} in the window (added when new). */
        int intern(UTF8String q, Judged judged) {
            long key = hash(q);
            int mask = table.length - 1;
            int at = (int) (key ^ (key >>> 32)) & mask;
            for (; table[at] != 0; at = (at + 1) & mask) {
                int index = table[at] - 1;
                if (qHash.values[index] == key && is(index, q)) return index;
            }
            int index = qHash.size;
            qHash.add(key);
            qFrom.add(qBytes.add(q));
            qLength.add(q.numBytes());
            qSlot.add(judged.slotOf(q, key));
            qRows.add(0);
            qBad.add(0);
            qEdge.add(0);
            table[at] = index + 1;
            if (2 * qHash.size > table.length) grow();
            return index;
        }

        /** Whether query {@code index} of the window is {@code q}. */
        boolean is(int index, UTF8String q) {
            return same(q, qBytes.values, qFrom.values[index], qLength.values[index]);
        }

        /**
         * The id of query {@code index}, as a string of its own (for a later window): a copy,
         * since {@code clear()} and the next window's {@code intern} write over the window's
         * bytes (a view of them read another id once the window was flushed).
         */
        UTF8String id(int index) {
            int from = qFrom.values[index];
            return UTF8String.fromBytes(
                Arrays.copyOfRange(qBytes.values, from, from + qLength.values[index]));
        }

        private void grow() {
            table = new int[table.length * 2];
            int mask = table.length - 1;
            for (int index = 0; index < qHash.size; index++) {
                long key = qHash.values[index];
                int at = (int) (key ^ (key >>> 32)) & mask;
                while (table[at] != 0) at = (at + 1) & mask;
                table[at] = index + 1;
            }
        }

        void add(int q, UTF8String d, double s, long at) {
            int from = docBytes.add(d);
            hash.add(hash(docBytes.values, Platform.BYTE_ARRAY_OFFSET + from, d.numBytes()));
            docFrom.add(from);
            docLength.add(d.numBytes());
            score.add(s);
            position.add(at);
            query.add(q);
            qRows.values[q]++;
        }
    }

    // ---------------------------------------------------------------- the pass

    /** One partition's pass. */
    static final class Pass implements FlatMapFunction<Iterator<InternalRow>, byte[]> {
        private static final long serialVersionUID = 2L;
        private final Judged judged;
        private final long[] settings;

        Pass(Judged judged, long[] settings) {
            this.judged = judged;
            this.settings = settings;
        }

        /* The current piece's rows: hash, score, id and position of each. */
        private transient long[] hashes, positions;
        private transient double[] scores;
        private transient int[] docFrom, docLength;
        private transient byte[] docBytes;
        private transient int n;
        /* Its judged documents: row and judgment. */
        private transient int[] hitRow, hitJudgment;
        private transient int k;
        /* Scratch: the hash set of listedTwice, the tie groups of finish, the grouping. */
        private transient long[] setHash;
        private transient int[] setRow, setStamp;
        private transient int generation;
        private transient int[] tiedRow, tiedLevel, groupRows, byId, byPosition, scratch;
        private transient long shipped;
        private transient long first, second; /* listedTwice's pair of positions */
        private transient int twiceRow; /* and the row of the second */

        private void allocate() {
            hashes = new long[1024];
            positions = new long[1024];
            scores = new double[1024];
            docFrom = new int[1024];
            docLength = new int[1024];
            hitRow = new int[64];
            hitJudgment = new int[64];
            setHash = new long[4096];
            setRow = new int[4096];
            setStamp = new int[4096];
            tiedRow = new int[256];
            tiedLevel = new int[256];
            groupRows = new int[256];
            byId = new int[1024];
            byPosition = new int[1024];
            scratch = new int[256];
            n = k = generation = 0;
            shipped = 0;
        }

        @Override
        public Iterator<byte[]> call(Iterator<InternalRow> rows) {
            allocate();
            Out out = new Out();
            Window window = new Window();
            int partition = TaskContext.getPartitionId();
            out.partition = partition;
            boolean float32 = settings[FLOAT32] != 0, dropSelf = settings[DROP_SELF] != 0;
            boolean given = settings[POSITIONS] != 0;
            long limit = Math.max(1, settings[BUFFER_ROWS]);
            long base = ((long) partition) << 33, index = 0;
            int local = -1, previous = -1;
            UTF8String file = null;
            long fileStart = -1;
            while (rows.hasNext()) {
                InternalRow row = rows.next();
                long at = given ? row.getLong(3) : base + index;
                index++;
                if (row.isNullAt(0)) {
                    if (out.nullQueries++ == 0) out.nullQueryAt = at;
                    continue;
                }
                UTF8String q = row.getUTF8String(0);
                if (local < 0 || !window.is(local, q)) {
                    previous = local;
                    local = window.intern(q, judged);
                    if (previous < 0 && file == null) window.qEdge.values[local] = 1; /* first */
                    /* a change of input file (or of split) between two queries: both may
                       continue in another partition (Parquet files packed together) */
                    UTF8String path = InputFileBlockHolder.getInputFilePath();
                    long start = InputFileBlockHolder.getStartOffset();
                    if (file != null && (start != fileStart || !(path == file || path.equals(file)))) {
                        if (previous >= 0) window.qEdge.values[previous] = 1;
                        window.qEdge.values[local] = 1;
                    }
                    file = path;
                    fileStart = start;
                }
                if (row.isNullAt(1)) {
                    if (out.nullDocs++ == 0) {
                        out.nullDocAt = at;
                        out.nullDocQuery.add(window.id(local));
                    }
                    continue;
                }
                double s = row.isNullAt(2) ? Double.NaN : row.getDouble(2);
                UTF8String d = row.getUTF8String(1);
                if (Double.isNaN(s) || Double.isInfinite(s)) {
                    window.qBad.values[local]++;
                    if (out.badAt < 0 || at < out.badAt) {
                        out.badAt = at;
                        out.badScore = row.isNullAt(2) ? Double.NaN : s;
                        out.badQuery.clear();
                        out.badDoc.clear();
                        out.badQuery.add(window.id(local));
                        out.badDoc.add(d);
                    }
                    continue;
                }
                if (dropSelf && window.is(local, d)) continue;
                if (float32) s = (float) s;
                window.add(local, d, s, at);
                if (window.rows() >= limit) { /* the query read continues after the window */
                    window.qEdge.values[local] = 1;
                    UTF8String current = window.id(local);
                    flush(window, out);
                    local = window.intern(current, judged);
                    window.qEdge.values[local] = 1;
                    previous = -1;
                }
            }
            if (local >= 0) window.qEdge.values[local] = 1; /* the partition's last */
            flush(window, out);
            out.rowsRead = index;
            return Collections.singletonList(out.toBytes()).iterator();
        }

        /** Groups the window's rows by query (stable: read order kept) and writes each piece. */
        private void flush(Window window, Out out) {
            int queries = window.queries(), rows = window.rows();
            int[] start = new int[queries + 1];
            for (int q = 0; q < queries; q++) start[q + 1] = start[q] + window.qRows.values[q];
            int[] order = new int[rows];
            int[] fill = Arrays.copyOf(start, queries);
            int[] query = window.query.values;
            for (int i = 0; i < rows; i++) order[fill[query[i]]++] = i;
            for (int q = 0; q < queries; q++) {
                gather(window, order, start[q], start[q + 1]);
                finish(window, q, out);
            }
            window.clear();
        }

        /** The rows order[from, to) of the window as the current piece. */
        private void gather(Window window, int[] order, int from, int to) {
            n = to - from;
            if (hashes.length < n) {
                int capacity = Math.max(n, hashes.length * 2);
                hashes = new long[capacity];
                positions = new long[capacity];
                scores = new double[capacity];
                docFrom = new int[capacity];
                docLength = new int[capacity];
            }
            for (int i = 0; i < n; i++) {
                int row = order[from + i];
                hashes[i] = window.hash.values[row];
                positions[i] = window.position.values[row];
                scores[i] = window.score.values[row];
                docFrom[i] = window.docFrom.values[row];
                docLength[i] = window.docLength.values[row];
            }
            docBytes = window.docBytes.values;
            k = 0;
        }

        private boolean sameId(int row, int otherRow) {
            return compare(docBytes, docFrom[row], docLength[row], docBytes, docFrom[otherRow],
                           docLength[otherRow]) == 0;
        }

        /** The judged documents among the piece's rows (hash found, id confirmed). */
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

        /**
         * 1 when a document is listed twice in the piece (equal hashes confirmed on ids); the
         * positions of the two rows in {@code first} and {@code second}.
         */
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
                    if (setHash[at] == h && sameId(i, setRow[at])) {
                        first = Math.min(positions[setRow[at]], positions[i]);
                        second = Math.max(positions[setRow[at]], positions[i]);
                        twiceRow = i;
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

        /** Orders rows[from, to): by id in byte order, or by position (a stable merge sort). */
        private void sortRows(int[] rows, int from, int to, boolean byPositions) {
            if (to - from < 12) {
                for (int i = from + 1; i < to; i++) {
                    int row = rows[i], j = i - 1;
                    while (j >= from && before(row, rows[j], byPositions)) {
                        rows[j + 1] = rows[j];
                        j--;
                    }
                    rows[j + 1] = row;
                }
                return;
            }
            int middle = (from + to) >>> 1;
            sortRows(rows, from, middle, byPositions);
            sortRows(rows, middle, to, byPositions);
            if (scratch.length < to - from) scratch = new int[Math.max(to - from, scratch.length * 2)];
            int i = from, j = middle, at = 0;
            while (i < middle && j < to) {
                if (before(rows[j], rows[i], byPositions)) scratch[at++] = rows[j++];
                else scratch[at++] = rows[i++];
            }
            while (i < middle) scratch[at++] = rows[i++];
            while (j < to) scratch[at++] = rows[j++];
            System.arraycopy(scratch, 0, rows, from, at);
        }

        private boolean before(int a, int b, boolean byPositions) {
            if (byPositions) return positions[a] < positions[b];
            return compare(docBytes, docFrom[a], docLength[a], docBytes, docFrom[b], docLength[b]) < 0;
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
         * A piece ends: its hits' counts, its own line (or only its count and hash: an unjudged
         * query with nothing to report), its rows when it sits at an edge and fits.
         */
        private void finish(Window window, int q, Out out) {
            int slot = window.qSlot.values[q];
            long bad = window.qBad.values[q];
            boolean edge = window.qEdge.values[q] != 0;
            if (n == 0 && bad == 0) return; /* nothing read of it here (a window's end) */
            long twice = listedTwice();
            long limit = settings[SHIP_ROWS];
            boolean ship = edge && shipped + n <= limit;
            if (slot < 0 && bad == 0 && twice == 0 && !ship) {
                out.quietHash.add(window.qHash.values[q]);
                out.quietCount.add(n);
                out.quietRows += n;
                return;
            }
            int piece = out.pieces();
            findJudged(slot);
            countHits(piece, out);
            if (ship) {
                shipped += n;
                for (int i = 0; i < n; i++) {
                    out.rPiece.add(piece);
                    out.rPosition.add(positions[i]);
                    out.rScore.add(scores[i]);
                    out.rDoc.add(docBytes, docFrom[i], docLength[i]);
                }
            }
            out.pRows.add(n);
            out.pBad.add(bad);
            out.pTwice.add(twice);
            out.pFlags.add((ship ? 1 : 0) | (edge ? 2 : 0));
            out.pHash.add(window.qHash.values[q]);
            out.pFirst.add(twice != 0 ? first : -1);
            out.pSecond.add(twice != 0 ? second : -1);
            out.pQuery.add(window.qBytes.values, window.qFrom.values[q], window.qLength.values[q]);
            if (twice != 0) out.pDoc.add(docBytes, docFrom[twiceRow], docLength[twiceRow]);
            else out.pDoc.add(docBytes, 0, 0);
        }

        /** For each hit of the piece: the rows above, tied, tied with a greater id, tied before. */
        private void countHits(int piece, Out out) {
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
            for (int i = 0; i < n && count > 0; i++) {
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
            /* the rows of each level with a tie, by id and by position: a hit's place in each */
            int[] start = new int[count + 1];
            for (int level = 0; level < count; level++) start[level + 1] = start[level] + (int) same[level];
            if (groupRows.length < tiedN) groupRows = new int[Math.max(tiedN, groupRows.length * 2)];
            int[] fill = Arrays.copyOf(start, count);
            for (int t = 0; t < tiedN; t++) groupRows[fill[tiedLevel[t]]++] = tiedRow[t];
            if (byId.length < n) {
                byId = new int[Math.max(n, byId.length * 2)];
                byPosition = new int[byId.length];
            }
            for (int level = 0; level < count; level++) {
                if (same[level] > 1) {
                    int from = start[level], to = start[level + 1];
                    sortRows(groupRows, from, to, false);
                    for (int at = from; at < to; at++) byId[groupRows[at]] = at - from;
                    sortRows(groupRows, from, to, true);
                    for (int at = from; at < to; at++) byPosition[groupRows[at]] = at - from;
                }
            }
            for (int j = 0; j < k; j++) {
                int row = hitRow[j];
                double s = scores[row];
                int level = levelOf(levels, count, s);
                long size = same[level];
                out.hPiece.add(piece);
                out.hJudgment.add(hitJudgment[j]);
                out.hScore.add(s);
                out.hPosition.add(positions[row]);
                out.hAbove.add(above[level]);
                out.hSize.add(size);
                out.hGreater.add(size > 1 ? size - 1 - byId[row] : 0);
                out.hEarlier.add(size > 1 ? byPosition[row] : 0);
            }
        }
    }

    // ---------------------------------------------------------------- the second pass

    /**
     * The second pass over chosen queries (those split in pieces the driver did not get whole):
     * each partition's share of the counts of their hits, and the 64-bit hashes of their
     * (query, document) pairs by bucket, for a shuffle that finds a document listed twice.
     * Keys: {@code -1 - segment} for a segment of {@link #SEGMENT} hits' counts, {@code bucket}
     * (0 and up) for hashes.
     */
    static final class Recount implements PairFlatMapFunction<Iterator<InternalRow>, Integer, long[]> {
        private static final long serialVersionUID = 1L;
        private final long[] settings;
        private final int buckets;
        /* the queries: open addressing of (index + 1) by hash, their ids (null: by hash only),
           their hits' places */
        private final int[] table;
        private final long[] queryHash;
        private final byte[][] queryText;
        private final int[] queryStart;
        /* hits sorted by (query, score, id): score, id, position; and the hit at each place */
        private final double[] score;
        private final byte[][] doc;
        private final long[] position;
        private final int[] hitAt;
        /* within each tie level, the places sorted by position, and their positions */
        private final int[] byPosition;
        private final long[] levelPosition;
        private final int[] levelEnd;

        Recount(long[] hashes, byte[][] queries, int[] hitQuery, double[] hitScore, byte[][] hitDoc,
                long[] hitPosition, long[] settings, int buckets) {
            this.settings = settings;
            this.buckets = buckets;
            int m = hashes.length, h = hitQuery.length;
            queryHash = hashes;
            queryText = queries;
            int capacity = 64;
            while (capacity < 4 * m) capacity *= 2;
            table = new int[capacity];
            for (int i = 0; i < m; i++) {
                long key = hashes[i];
                int at = (int) (key ^ (key >>> 32)) & (capacity - 1);
                while (table[at] != 0) at = (at + 1) & (capacity - 1);
                table[at] = i + 1;
            }
            Integer[] order = new Integer[h];
            for (int i = 0; i < h; i++) order[i] = i;
            Arrays.sort(order, (a, c) -> {
                int by = Integer.compare(hitQuery[a], hitQuery[c]);
                if (by == 0) by = Double.compare(hitScore[a] + 0.0, hitScore[c] + 0.0);
                if (by == 0) by = compare(hitDoc[a], 0, hitDoc[a].length, hitDoc[c], 0, hitDoc[c].length);
                return by;
            });
            hitAt = new int[h];
            score = new double[h];
            doc = new byte[h][];
            position = new long[h];
            queryStart = new int[m + 1];
            for (int t = 0; t < h; t++) {
                int hit = order[t];
                hitAt[t] = hit;
                score[t] = hitScore[hit] + 0.0;
                doc[t] = hitDoc[hit];
                position[t] = hitPosition[hit];
                queryStart[hitQuery[hit] + 1]++;
            }
            for (int i = 0; i < m; i++) queryStart[i + 1] += queryStart[i];
            /* tie levels: places of equal (query, score), each also by position */
            levelEnd = new int[h];
            byPosition = new int[h];
            levelPosition = new long[h];
            for (int t = 0; t < h; ) {
                int end = t + 1;
                while (end < h && hitQuery[hitAt[end]] == hitQuery[hitAt[t]] && score[end] == score[t]) {
                    end++;
                }
                Integer[] places = new Integer[end - t];
                for (int i = t; i < end; i++) places[i - t] = i;
                Arrays.sort(places, (a, c) -> Long.compare(position[a], position[c]));
                for (int i = t; i < end; i++) {
                    byPosition[i] = places[i - t];
                    levelPosition[i] = position[places[i - t]];
                    levelEnd[i] = end;
                }
                t = end;
            }
        }

        private int queryOf(UTF8String q, long key) {
            int mask = table.length - 1;
            for (int at = (int) (key ^ (key >>> 32)) & mask; table[at] != 0; at = (at + 1) & mask) {
                int index = table[at] - 1;
                if (queryHash[index] == key && (queryText[index] == null /* by its hash only */
                        || same(q, queryText[index], 0, queryText[index].length))) {
                    return index;
                }
            }
            return -1;
        }

        /** The first place in [from, to) whose score is not below s. */
        private int firstNotBelow(int from, int to, double s) {
            while (from < to) {
                int middle = (from + to) >>> 1;
                if (score[middle] < s) from = middle + 1; else to = middle;
            }
            return from;
        }

        @Override
        public Iterator<Tuple2<Integer, long[]>> call(Iterator<InternalRow> rows) {
            int h = score.length;
            long[] above = new long[h + 1], size = new long[h + 1], greater = new long[h + 1];
            long[] earlier = new long[h + 1];
            Longs[] hashes = new Longs[buckets];
            for (int b = 0; b < buckets; b++) hashes[b] = new Longs(64);
            boolean float32 = settings[FLOAT32] != 0, dropSelf = settings[DROP_SELF] != 0;
            boolean given = settings[POSITIONS] != 0;
            long base = ((long) TaskContext.getPartitionId()) << 33, index = 0;
            byte[] current = new byte[64]; /* the previous row's query id */
            int currentLength = -1;
            int query = -1;
            long queryKey = 0;
            while (rows.hasNext()) {
                InternalRow row = rows.next();
                long at = given ? row.getLong(3) : base + index;
                index++;
                if (row.isNullAt(0) || row.isNullAt(1) || row.isNullAt(2)) continue;
                UTF8String q = row.getUTF8String(0);
                if (currentLength < 0 || !same(q, current, 0, currentLength)) {
                    currentLength = q.numBytes();
                    if (current.length < currentLength) current = new byte[2 * currentLength];
                    copy(q, current, 0);
                    queryKey = hash(q);
                    query = queryOf(q, queryKey);
                }
                if (query < 0) continue;
                double s = row.getDouble(2);
                if (Double.isNaN(s) || Double.isInfinite(s)) continue;
                UTF8String d = row.getUTF8String(1);
                if (dropSelf && same(d, current, 0, currentLength)) continue;
                /* Spark's xxhash64(q, d): the document's bytes seeded with the query's hash */
                long pair = XXH64.hashUnsafeBytes(d.getBaseObject(), d.getBaseOffset(), d.numBytes(),
                                                  queryKey);
                hashes[(int) ((pair >>> 1) % buckets)].add(pair);
                if (float32) s = (float) s;
                int from = queryStart[query], to = queryStart[query + 1];
                if (from == to) continue;
                int low = firstNotBelow(from, to, s);
                above[from]++; /* every hit scoring lower: [from, low) */
                above[low]--;
                if (low == to || score[low] != s) continue;
                int end = levelEnd[low];
                size[low]++;
                size[end]--;
                byte[] id = d.getBytes();
                int smaller = low; /* the hits of the level whose id is below this row's */
                while (smaller < end && compare(doc[smaller], 0, doc[smaller].length, id, 0, id.length) < 0) {
                    smaller++;
                }
                greater[low]++;
                greater[smaller]--;
                int later = low; /* the hits of the level placed after this row */
                while (later < end && levelPosition[later] <= at) later++;
                earlier[later]++;
                earlier[end]--;
            }
            List<Tuple2<Integer, long[]>> out = new ArrayList<>();
            long[] counts = new long[4 * h];
            long a = 0, b = 0, c = 0, e = 0;
            for (int t = 0; t < h; t++) {
                a += above[t];
                b += size[t];
                c += greater[t];
                e += earlier[t];
                int hit = hitAt[t];
                counts[4 * hit] = a;
                counts[4 * hit + 1] = b;
                counts[4 * hit + 2] = c;
                counts[4 * hitAt[byPosition[t]] + 3] = e;
            }
            for (int from = 0, segment = 0; from < 4 * h; from += 4 * SEGMENT, segment++) {
                out.add(new Tuple2<>(-1 - segment, Arrays.copyOfRange(counts, from,
                                                                      Math.min(4 * h, from + 4 * SEGMENT))));
            }
            for (int bucket = 0; bucket < buckets; bucket++) {
                if (hashes[bucket].size > 0) {
                    out.add(new Tuple2<>(bucket, Arrays.copyOf(hashes[bucket].values,
                                                               hashes[bucket].size)));
                }
            }
            return out.iterator();
        }
    }

    /** Hits' counts per shuffled segment of the second pass. */
    static final int SEGMENT = 1 << 16;

    /**
     * What each key of the second pass comes to: a segment's counts summed over the
     * partitions, or the hashes of a bucket seen more than once (sorted, each once).
     */
    static final class Reduce implements FlatMapFunction<Iterator<Tuple2<Integer, Iterable<long[]>>>,
                                                        Tuple2<Integer, long[]>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Iterator<Tuple2<Integer, long[]>> call(Iterator<Tuple2<Integer, Iterable<long[]>>> keys) {
            List<Tuple2<Integer, long[]>> out = new ArrayList<>();
            while (keys.hasNext()) {
                Tuple2<Integer, Iterable<long[]>> key = keys.next();
                if (key._1() < 0) {
                    long[] sum = null;
                    for (long[] part : key._2()) {
                        if (sum == null) sum = part.clone();
                        else for (int i = 0; i < sum.length; i++) sum[i] += part[i];
                    }
                    out.add(new Tuple2<>(key._1(), sum));
                    continue;
                }
                int total = 0;
                for (long[] part : key._2()) total += part.length;
                long[] all = new long[total];
                int at = 0;
                for (long[] part : key._2()) {
                    System.arraycopy(part, 0, all, at, part.length);
                    at += part.length;
                }
                Arrays.sort(all);
                Longs twice = new Longs(4);
                for (int i = 1; i < total; i++) {
                    if (all[i] == all[i - 1] && (twice.size == 0 || twice.values[twice.size - 1] != all[i])) {
                        twice.add(all[i]);
                    }
                }
                if (twice.size > 0) out.add(new Tuple2<>(key._1(), Arrays.copyOf(twice.values, twice.size)));
            }
            return out.iterator();
        }
    }

    // ---------------------------------------------------------------- the layout probe

    /**
     * The first {@code limit} rows of a partition: each query's 64-bit hash and its rows among
     * them, sorted by hash (int64s: the count of queries, the hashes, the counts).
     */
    static final class Heads implements FlatMapFunction<Iterator<InternalRow>, long[]> {
        private static final long serialVersionUID = 1L;
        private final int limit;

        Heads(int limit) {
            this.limit = limit;
        }

        @Override
        public Iterator<long[]> call(Iterator<InternalRow> rows) {
            long[] hashes = new long[limit];
            int n = 0;
            while (n < limit && rows.hasNext()) {
                InternalRow row = rows.next();
                if (!row.isNullAt(0)) hashes[n++] = hash(row.getUTF8String(0));
            }
            Arrays.sort(hashes, 0, n);
            Longs keys = new Longs(64), counts = new Longs(64);
            for (int i = 0; i < n; ) {
                int end = i + 1;
                while (end < n && hashes[end] == hashes[i]) end++;
                keys.add(hashes[i]);
                counts.add(end - i);
                i = end;
            }
            long[] out = new long[1 + 2 * keys.size];
            out[0] = keys.size;
            System.arraycopy(keys.values, 0, out, 1, keys.size);
            System.arraycopy(counts.values, 0, out, 1 + keys.size, keys.size);
            return Collections.singletonList(out).iterator();
        }
    }

    // ---------------------------------------------------------------- what the driver calls

    /**
     * The run's rows as Spark's internal rows: the one RDD every job of an evaluation reads.
     *
     * <p>When the frame is a columnar scan (Parquet, ORC, a cached table) under nothing but a
     * renaming of its columns, the rows are read from the scan's column batches themselves
     * ({@link #batchRows}): the same rows in the same order, without the copy of each row into
     * an {@code UnsafeRow} that Spark's row plan makes (a third of the pass's time on a
     * Parquet run). Any other plan (a cast, a filter, a shuffle) is read as Spark's rows.
     */
    public static JavaRDD<InternalRow> rows(Dataset<Row> frame) {
        SparkPlan plan = frame.queryExecution().executedPlan();
        try {
            int[] ordinals = scanOrdinals(plan);
            if (ordinals != null) {
                return scanOf(plan).executeColumnar().toJavaRDD().mapPartitions(new BatchRows(ordinals));
            }
        } catch (LinkageError | RuntimeException error) { /* another Spark's plan classes */
        }
        return frame.queryExecution().toRdd().toJavaRDD();
    }

    /** The columnar scan under the renamings and transitions of {@code plan}. */
    private static SparkPlan scanOf(SparkPlan plan) {
        SparkPlan node = plan;
        while (node instanceof WholeStageCodegenExec || node instanceof InputAdapter
               || node instanceof ColumnarToRowExec || node instanceof ProjectExec) {
            node = node.children().apply(0);
        }
        return node;
    }

    /**
     * For each column of {@code plan}'s output, its column in the batches of the columnar scan
     * below (the same attribute, renamed at most, of the same type); null when {@code plan} is
     * anything else, or reads the scan's rows without a transition from its batches.
     */
    public static int[] scanOrdinals(SparkPlan plan) {
        SparkPlan node = plan;
        scala.collection.Seq<NamedExpression> renamed = null;
        boolean transition = false;
        while (node instanceof WholeStageCodegenExec || node instanceof InputAdapter
               || node instanceof ColumnarToRowExec || node instanceof ProjectExec) {
            if (node instanceof ProjectExec) {
                if (renamed != null || transition) return null; /* one renaming, above the scan */
                renamed = ((ProjectExec) node).projectList();
            }
            if (node instanceof ColumnarToRowExec) transition = true;
            node = node.children().apply(0);
        }
        if (!transition || !node.children().isEmpty() || !node.supportsColumnar()) return null;
        scala.collection.Seq<Attribute> scanned = node.output();
        scala.collection.Seq<Attribute> wanted = plan.output();
        int[] ordinals = new int[wanted.size()];
        for (int i = 0; i < ordinals.length; i++) {
            Object source = renamed == null ? wanted.apply(i) : renamed.apply(i);
            if (source instanceof Alias) source = ((Alias) source).child();
            if (!(source instanceof Attribute)) return null;
            Attribute attribute = (Attribute) source;
            if (!attribute.dataType().equals(wanted.apply(i).dataType())) return null;
            ordinals[i] = -1;
            for (int j = 0; j < scanned.size(); j++) {
                if (scanned.apply(j).exprId().equals(attribute.exprId())) ordinals[i] = j;
            }
            if (ordinals[i] < 0) return null;
        }
        return ordinals;
    }

    /** The rows of a scan's column batches, its columns picked by {@code ordinals}. */
    static final class BatchRows implements FlatMapFunction<Iterator<ColumnarBatch>, InternalRow> {
        private static final long serialVersionUID = 1L;
        private final int[] ordinals;

        BatchRows(int[] ordinals) {
            this.ordinals = ordinals;
        }

        @Override
        public Iterator<InternalRow> call(Iterator<ColumnarBatch> batches) {
            return new Iterator<InternalRow>() {
                private Iterator<InternalRow> rows = Collections.emptyIterator();

                @Override
                public boolean hasNext() {
                    while (!rows.hasNext()) {
                        if (!batches.hasNext()) return false;
                        ColumnarBatch batch = batches.next();
                        ColumnVector[] columns = new ColumnVector[ordinals.length];
                        for (int i = 0; i < columns.length; i++) columns[i] = batch.column(ordinals[i]);
                        rows = new ColumnarBatch(columns, batch.numRows()).rowIterator();
                    }
                    return true;
                }

                @Override
                public InternalRow next() {
                    if (!hasNext()) throw new java.util.NoSuchElementException();
                    return rows.next();
                }
            };
        }
    }

    // ---------------------------------------------------------------- a round-robin repartition

    /**
     * What {@link #withoutRoundRobin} found: the round-robin {@code repartition(n)}'s {@code n}
     * (0: none), and either the run without it, or why it was kept.
     */
    public static final class Unshuffled {
        private final Dataset<Row> frame;
        private final int partitions;
        private final String kept;

        Unshuffled(Dataset<Row> frame, int partitions, String kept) {
            this.frame = frame;
            this.partitions = partitions;
            this.kept = kept;
        }

        /** The run read below the repartition (null: none found, or kept). */
        public Dataset<Row> frame() {
            return frame;
        }

        /** The repartition's number of partitions (0: no round-robin repartition found). */
        public int partitions() {
            return partitions;
        }

        /** Why the repartition was kept (null: none found, or skipped). */
        public String kept() {
            return kept;
        }
    }

    /**
     * The run {@code frame} without the round-robin {@code repartition(n)} (no columns; not a
     * {@code coalesce}, not by columns or ranges) found under its top operators, when only
     * deterministic projections and filters (and aliases) are above it and none of them, nor the
     * repartition, is cached: a round-robin repartition deals rows to partitions arbitrarily, and
     * what the pass computes of a query does not depend on where its rows are. The new frame is
     * built from the plan with the repartition's node replaced by its child.
     */
    public static Unshuffled withoutRoundRobin(Dataset<Row> frame) {
        QueryExecution execution = frame.queryExecution();
        List<LogicalPlan> above = new ArrayList<>();
        LogicalPlan found = roundRobin(execution.analyzed(), above);
        if (found == null) return new Unshuffled(null, 0, null);
        int partitions = ((Repartition) found).numPartitions();
        for (LogicalPlan node : above) {
            String blocked = blocks(node);
            if (blocked != null) return new Unshuffled(null, partitions, blocked);
        }
        above.clear();
        found = roundRobin(execution.withCachedData(), above);
        if (found == null) {  /* the same plan, but for the cached parts: one of them is above it */
            return new Unshuffled(null, partitions, "it is cached: reading the cache is cheaper");
        }
        LogicalPlan plan = ((Repartition) found).child();
        for (int i = above.size() - 1; i >= 0; i--) {
            plan = (LogicalPlan) above.get(i).withNewChildren(
                scala.jdk.javaapi.CollectionConverters.asScala(Collections.singletonList(plan)).toSeq());
        }
        try {
            return new Unshuffled(ofRows(execution.sparkSession(), plan), partitions, null);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException error) {
            return new Unshuffled(null, partitions, "Spark could not plan the run without it ("
                                  + error + ")");
        }
    }

    /** The first round-robin repartition down the chain of one-child operators; those above it. */
    private static LogicalPlan roundRobin(LogicalPlan plan, List<LogicalPlan> above) {
        LogicalPlan node = plan;
        while (!(node instanceof Repartition && ((Repartition) node).shuffle())) {
            if (node.children().size() != 1) return null;
            above.add(node);
            node = node.children().apply(0);
        }
        return node;
    }

    /** Why {@code node}, above a round-robin repartition, keeps it (null: it does not). */
    private static String blocks(LogicalPlan node) {
        if (node instanceof SubqueryAlias || node instanceof View) return null;  /* names only */
        if (node instanceof Project) {
            scala.collection.Iterator<NamedExpression> columns =
                ((Project) node).projectList().iterator();
            while (columns.hasNext()) {
                Expression column = (Expression) columns.next();
                if (!column.deterministic()) {
                    Expression value = column instanceof Alias ? ((Alias) column).child() : column;
                    return "a column above it, " + value.sql()
                        + ", depends on where the rows are";
                }
            }
            return null;
        }
        if (node instanceof Filter) {
            Expression condition = ((Filter) node).condition();
            return condition.deterministic() ? null : "a filter above it, " + condition.sql()
                + ", depends on where the rows are";
        }
        if (node instanceof Repartition) {
            return "a coalesce(" + ((Repartition) node).numPartitions() + ") is above it";
        }
        return "Spark's " + node.nodeName() + " is above it: only aliases, views and "
            + "deterministic columns and filters are looked through";
    }

    /** Spark's {@code Dataset.ofRows(session, plan)}, found by its name (its class moved in 4.0). */
    @SuppressWarnings("unchecked")
    private static Dataset<Row> ofRows(Object session, LogicalPlan plan)
            throws ReflectiveOperationException {
        for (String name : new String[] {"org.apache.spark.sql.classic.Dataset",
                                         "org.apache.spark.sql.Dataset"}) {
            Class<?> type;
            try {
                type = Class.forName(name);
            } catch (ClassNotFoundException error) {
                continue;
            }
            for (java.lang.reflect.Method method : type.getMethods()) {
                Class<?>[] parameters = method.getParameterTypes();
                if (method.getName().equals("ofRows") && parameters.length == 2
                    && java.lang.reflect.Modifier.isStatic(method.getModifiers())
                    && parameters[0].isInstance(session) && parameters[1].isInstance(plan)) {
                    return (Dataset<Row>) method.invoke(null, session, plan);
                }
            }
        }
        throw new NoSuchMethodException("Dataset.ofRows(SparkSession, LogicalPlan)");
    }

    /**
     * The pass over {@code rows} (q string, d string, s double[, p long]), given the judged
     * pairs: their query and document ids as UTF-8, each an array of bytes and the offsets into
     * it as little-endian int64 (the judgment of pair {@code i} is {@code i}); the settings
     * (int64s, see {@link #BUFFER_ROWS}). The partitions' arrays are written to {@code path},
     * each after its length (int64, little-endian). Returns the number of partitions.
     */
    public static int scan(JavaRDD<InternalRow> rows, byte[] queryBytes, byte[] queryOffsets,
                           byte[] docBytes, byte[] docOffsets, byte[] settings, String path)
            throws IOException {
        Judged judged = judged(queryBytes, longs(queryOffsets), docBytes, longs(docOffsets));
        List<byte[]> parts = rows.mapPartitions(new Pass(judged, longs(settings))).collect();
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

    /**
     * The layout probe: for each of {@code partitions}, the queries of its first {@code limit}
     * rows ({@link Heads}), one partition's int64s after the other, little-endian, written to
     * {@code path}. Only those partitions are computed.
     */
    public static void heads(JavaRDD<InternalRow> rows, int[] partitions, int limit, String path)
            throws IOException {
        List<long[]>[] found = rows.mapPartitions(new Heads(limit)).collectPartitions(partitions);
        int total = 0;
        for (List<long[]> part : found) for (long[] values : part) total += values.length;
        ByteBuffer out = ByteBuffer.allocate(8 * total).order(ByteOrder.LITTLE_ENDIAN);
        for (List<long[]> part : found) for (long[] values : part) for (long v : values) out.putLong(v);
        try (OutputStream file = new FileOutputStream(path)) {
            file.write(out.array());
        }
    }

    /**
     * The second pass over the chosen queries (their 64-bit hashes; their ids as UTF-8, a
     * query marked 0 in {@code known} found by its hash alone) and their hits (query index,
     * score, document id, position): per hit the rows of its query over the whole run scoring
     * higher, tied, tied with a greater id, and tied read before it, summed over the partitions
     * by a shuffle, written to {@code path} as 4 little-endian int64 per hit; then the
     * (query, document) hashes seen twice (Spark's {@code xxhash64(q, d)}, sorted), after their
     * count (int64).
     */
    public static void recount(JavaRDD<InternalRow> rows, byte[] queryHashes, byte[] known,
                               byte[] queryBytes, byte[] queryOffsets, byte[] hitQuery,
                               byte[] hitScore, byte[] hitDocBytes, byte[] hitDocOffsets,
                               byte[] hitPosition, byte[] settings, String path) throws IOException {
        long[] hashes = longs(queryHashes), isKnown = longs(known), qo = longs(queryOffsets);
        long[] dof = longs(hitDocOffsets), hq = longs(hitQuery);
        byte[][] queries = new byte[hashes.length][];
        for (int i = 0; i < queries.length; i++) {
            if (isKnown[i] != 0) queries[i] = Arrays.copyOfRange(queryBytes, (int) qo[i], (int) qo[i + 1]);
        }
        int h = hq.length;
        int[] hitQueries = new int[h];
        byte[][] docs = new byte[h][];
        for (int i = 0; i < h; i++) {
            hitQueries[i] = (int) hq[i];
            docs[i] = Arrays.copyOfRange(hitDocBytes, (int) dof[i], (int) dof[i + 1]);
        }
        int partitions = Math.max(1, rows.getNumPartitions());
        int segments = (h + SEGMENT - 1) / SEGMENT;
        Recount pass = new Recount(hashes, queries, hitQueries, doubles(hitScore), docs,
                                   longs(hitPosition), longs(settings), partitions);
        List<Tuple2<Integer, long[]>> found = rows.mapPartitionsToPair(pass)
            .groupByKey(new HashPartitioner(partitions + segments))
            .mapPartitions(new Reduce()).collect();
        long[] counts = new long[4 * h];
        Longs twice = new Longs(16);
        for (Tuple2<Integer, long[]> key : found) {
            if (key._1() < 0) {
                System.arraycopy(key._2(), 0, counts, 4 * SEGMENT * (-1 - key._1()), key._2().length);
            } else {
                for (long value : key._2()) twice.add(value);
            }
        }
        ByteBuffer out = ByteBuffer.allocate(8 * (counts.length + 1 + twice.size))
            .order(ByteOrder.LITTLE_ENDIAN);
        for (long value : counts) out.putLong(value);
        out.putLong(twice.size);
        twice.write(out);
        try (OutputStream file = new FileOutputStream(path)) {
            file.write(out.array());
        }
    }
}
