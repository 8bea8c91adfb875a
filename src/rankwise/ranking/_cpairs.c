/*
 * rankwise.ranking._cpairs: recommender lists (rankwise.recommenders.inputs), user-item
 * pairs joined by user.
 *
 * Rows are (user code, item code) pairs. join_pairs groups the rows of both sides by
 * user (no work when they come grouped already, else a counting sort) and, user by
 * user, writes the set side's items into a table indexed by item code (stamped with
 * the user) that each row of the query side reads: linear time, no sort, no hashing.
 * order_lists puts recommendation rows in rank order (nothing to do, one pass, when they
 * come grouped by user and ordered by score; else a counting sort by user and a stable
 * sort inside each user's rows); head_lists checks rows in that order in one pass over their
 * ids and keeps the first k items of each list; gather_sums sums a
 * per-item value over each user's rows; count_codes and take_codes are np.bincount and
 * np.take on codes without the cast to intp. The GIL is released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int64_t
code_at(const char *p, int width, Py_ssize_t i)
{
    return width == 4 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

typedef struct {
    int64_t *start; /* per user: its first position (a row, or an index into order) */
    int64_t *stop;
    int64_t *order; /* NULL: the rows come grouped by user, positions are rows */
} Groups;

static void
groups_free(Groups *g)
{
    free(g->start);
    free(g->stop);
    free(g->order);
}

#define PAIRS_NO_MEMORY (-1)
#define PAIRS_BAD_USER (-2)
#define PAIRS_BAD_ITEM (-3)
#define PAIRS_TOO_MANY (-4)

static int
groups_build(const char *users, int width, Py_ssize_t n, int64_t n_users, Groups *g)
{
    g->start = calloc((size_t)n_users + 1, sizeof(int64_t));
    g->stop = calloc((size_t)n_users + 1, sizeof(int64_t));
    g->order = NULL;
    unsigned char *visited = calloc((size_t)n_users + 1, 1);
    if (g->start == NULL || g->stop == NULL || visited == NULL) {
        free(visited);
        return PAIRS_NO_MEMORY;
    }
    int grouped = 1;
    Py_ssize_t r = 0;
    while (r < n) {
        int64_t u = code_at(users, width, r);
        if (u < 0 || u >= n_users) {
            free(visited);
            return PAIRS_BAD_USER;
        }
        Py_ssize_t e = r + 1;
        while (e < n && code_at(users, width, e) == u) {
            e++;
        }
        if (visited[u]) {
            grouped = 0;
            break;
        }
        visited[u] = 1;
        g->start[u] = r;
        g->stop[u] = e;
        r = e;
    }
    free(visited);
    if (grouped) {
        return 0;
    }
    /* a counting sort of the rows by user */
    memset(g->start, 0, ((size_t)n_users + 1) * sizeof(int64_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t u = code_at(users, width, i);
        if (u < 0 || u >= n_users) {
            return PAIRS_BAD_USER;
        }
        g->start[u + 1]++;
    }
    for (int64_t u = 0; u < n_users; u++) {
        g->start[u + 1] += g->start[u];
        g->stop[u] = g->start[u];
    }
    g->order = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (g->order == NULL) {
        return PAIRS_NO_MEMORY;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        g->order[g->stop[code_at(users, width, i)]++] = i;
    }
    return 0;
}

typedef struct {
    const char *q_users, *q_items, *s_users, *s_items;
    int q_width, s_width, out_width, mode;
    Py_ssize_t n_q, n_s;
    int64_t s_limit; /* only the first s_limit set rows of each user count (< 0: all) */
    int64_t n_users, n_items;
    char *out;
} Join;

typedef struct {
    int32_t user; /* the user whose set holds the item, -1: none yet */
    int32_t at;   /* the item's first position in the user's group */
} Stamp;

/* The item of position p of a group's rows (order: positions to rows, or NULL: positions
   are rows), its row in *row; -1 when the item's code is out of [0, n_items). */
static inline int64_t
group_item(const char *items, int width, const int64_t *order, int64_t p, int64_t n_items,
           int64_t *row)
{
    *row = order ? order[p] : p;
    int64_t item = code_at(items, width, *row);
    return item < 0 || item >= n_items ? -1 : item;
}

/* mode 0: out[r] (uint8) = the pair of query row r is in the set; mode 1: out[r] (int32 or
 * int64) = the lowest set row holding the pair, or -1; mode 2 (query and set the same
 * rows): out[r] (uint8) = a row before r holds the same pair. */
static int
join_run(const Join *j)
{
    Groups gq = {NULL, NULL, NULL}, gs = {NULL, NULL, NULL};
    Stamp *table = malloc((size_t)(j->n_items > 0 ? j->n_items : 1) * sizeof(Stamp));
    int status = table == NULL ? PAIRS_NO_MEMORY : 0;
    if (status == 0) {
        status = groups_build(j->q_users, j->q_width, j->n_q, j->n_users, &gq);
    }
    if (status == 0 && j->mode != 2) {
        status = groups_build(j->s_users, j->s_width, j->n_s, j->n_users, &gs);
    }
    if (status != 0) {
        goto done;
    }
    for (int64_t i = 0; i < j->n_items; i++) {
        table[i].user = -1;
    }
    for (int64_t u = 0; u < j->n_users; u++) {
        int64_t a = gq.start[u], b = gq.stop[u];
        if (a == b) {
            continue;
        }
        int32_t user = (int32_t)u;
        if (j->mode == 2) { /* one walk: an item stamped already is a repeat */
            for (int64_t p = a; p < b; p++) {
                int64_t row, item = group_item(j->q_items, j->q_width, gq.order, p, j->n_items, &row);
                if (item < 0) {
                    status = PAIRS_BAD_ITEM;
                    goto done;
                }
                ((uint8_t *)j->out)[row] = table[item].user == user;
                table[item].user = user;
            }
            continue;
        }
        int64_t c = gs.start[u], d = gs.stop[u];
        if (j->s_limit >= 0 && d - c > j->s_limit) {
            d = c + j->s_limit;
        }
        if (d - c > INT32_MAX) {
            status = PAIRS_TOO_MANY;
            goto done;
        }
        /* the set's rows of u, the lowest written last (it wins) */
        for (int64_t p = d - 1; p >= c; p--) {
            int64_t row, item = group_item(j->s_items, j->s_width, gs.order, p, j->n_items,
                                           &row);
            if (item < 0) {
                status = PAIRS_BAD_ITEM;
                goto done;
            }
            table[item].user = user;
            table[item].at = (int32_t)(p - c);
        }
        for (int64_t p = a; p < b; p++) {
            int64_t row, item = group_item(j->q_items, j->q_width, gq.order, p, j->n_items,
                                           &row);
            if (item < 0) {
                status = PAIRS_BAD_ITEM;
                goto done;
            }
            int64_t found = -1;
            if (table[item].user == user) {
                found = c + table[item].at;
                found = gs.order ? gs.order[found] : found;
            }
            if (j->mode == 0) {
                ((uint8_t *)j->out)[row] = found >= 0;
            } else if (j->out_width == 4) {
                ((int32_t *)j->out)[row] = (int32_t)found;
            } else {
                ((int64_t *)j->out)[row] = found;
            }
        }
    }
done:
    free(table);
    groups_free(&gq);
    groups_free(&gs);
    return status;
}

static int
code_width(const Py_buffer *b, const char *what)
{
    const char *f = b->format ? b->format : "B";
    if (b->itemsize == 4 && (f[0] == 'i' || f[0] == 'l')) {
        return 4;
    }
    if (b->itemsize == 8 && (f[0] == 'l' || f[0] == 'q')) {
        return 8;
    }
    PyErr_Format(PyExc_TypeError, "join_pairs: %s must be int32 or int64 codes", what);
    return -1;
}

/* A ValueError (a code out of range): NULL. */
static PyObject *
out_of_range(const char *message)
{
    PyErr_SetString(PyExc_ValueError, message);
    return NULL;
}

/* The first `held` buffers released; returns `result` (a function's end: return released(...)). */
static PyObject *
released(Py_buffer *b, int held, PyObject *result)
{
    for (int i = 0; i < held; i++) {
        PyBuffer_Release(&b[i]);
    }
    return result;
}

PyDoc_STRVAR(join_pairs_doc,
"join_pairs(q_users, q_items, s_users, s_items, n_users, n_items, mode, out,\n"
"           s_limit=-1, /)\n"
"--\n\n"
"Find each query pair (user, item codes: int32 or int64, C-contiguous) among the\n"
"set's pairs. mode 0: out (uint8) marks the pairs in the set; mode 1: out (int32 or\n"
"int64) gets the lowest set row holding the pair, or -1; mode 2 (the same rows on\n"
"both sides): out (uint8) marks the rows whose pair a lower row holds. Neither side\n"
"needs to be sorted; rows grouped by user skip the counting sort. Codes must be in\n"
"[0, n_users) and [0, n_items) (ValueError otherwise); n_users < 2**31. With\n"
"s_limit >= 0, only the first s_limit set rows of each user count (the top of lists).");

static PyObject *
cpairs_join_pairs(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[5];
    long long n_users, n_items, s_limit = -1;
    int mode;
    if (!PyArg_ParseTuple(args, "OOOOLLiO|L:join_pairs", &objs[0], &objs[1], &objs[2],
                          &objs[3], &n_users, &n_items, &mode, &objs[4], &s_limit)) {
        return NULL;
    }
    Py_buffer b[5];
    int held = 0;
    PyObject *result = NULL;
    for (int i = 0; i < 5; i++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (i == 4 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objs[i], &b[i], flags) < 0) {
            goto done;
        }
        held++;
    }
    static const char *names[4] = {"q_users", "q_items", "s_users", "s_items"};
    int widths[4];
    for (int i = 0; i < 4; i++) {
        if ((widths[i] = code_width(&b[i], names[i])) < 0) {
            goto done;
        }
    }
    if (widths[0] != widths[1] || widths[2] != widths[3]) {
        PyErr_SetString(PyExc_TypeError, "join_pairs: users and items of a side differ in type");
        goto done;
    }
    Py_ssize_t n_q = b[0].len / widths[0], n_s = b[2].len / widths[2];
    int out_width = mode == 1 ? (int)b[4].itemsize : 1;
    if (b[1].len / widths[1] != n_q || b[3].len / widths[3] != n_s || mode < 0 || mode > 2 ||
        (mode == 1 && out_width != 4 && out_width != 8) || b[4].itemsize != out_width ||
        b[4].len / out_width != n_q || n_users < 0 || n_users >= ((long long)1 << 31) ||
        n_items < 0 || (mode == 1 && out_width == 4 && n_s >= ((Py_ssize_t)1 << 31)) ||
        (mode == 2 && (b[0].buf != b[2].buf || b[1].buf != b[3].buf))) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: arrays, sizes or mode do not match");
        goto done;
    }
    Join j = {
        .q_users = b[0].buf, .q_items = b[1].buf, .s_users = b[2].buf, .s_items = b[3].buf,
        .q_width = widths[0], .s_width = widths[2], .out_width = out_width, .mode = mode,
        .n_q = n_q, .n_s = n_s, .n_users = n_users, .n_items = n_items, .out = b[4].buf,
        .s_limit = mode == 2 ? -1 : s_limit,
    };
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = join_run(&j);
    Py_END_ALLOW_THREADS
    if (status == PAIRS_NO_MEMORY) {
        PyErr_NoMemory();
    } else if (status == PAIRS_BAD_USER) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: a user code out of range");
    } else if (status == PAIRS_BAD_ITEM) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: an item code out of range");
    } else if (status == PAIRS_TOO_MANY) {
        PyErr_SetString(PyExc_ValueError, "join_pairs: a user with 2**31 set rows or more");
    } else {
        result = Py_NewRef(Py_None);
    }
done:
    return released(b, held, result);
}

/*
 * A C-contiguous buffer of int32 codes, or (int32_only false) of int32 or int64 codes:
 * its width (4 or 8), or -1 with an exception set (a TypeError naming `what`).
 */
static int
code_buffer(PyObject *obj, Py_buffer *b, int writable, const char *what, int int32_only)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                       (writable ? PyBUF_WRITABLE : 0)) < 0) {
        return -1;
    }
    const char *f = b->format ? b->format : "B";
    if ((b->itemsize == 4 && (f[0] == 'i' || f[0] == 'l')) ||
        (!int32_only && b->itemsize == 8 && (f[0] == 'l' || f[0] == 'q'))) {
        return (int)b->itemsize;
    }
    PyBuffer_Release(b);
    PyErr_Format(PyExc_TypeError, int32_only ? "%s must be int32" : "%s must be int32 or int64",
                 what);
    return -1;
}

PyDoc_STRVAR(gather_sums_doc,
"gather_sums(users, items, values, sums, counts, /)\n"
"--\n\n"
"For each row r (int32 codes): sums[users[r]] += values[items[r]] (float64) and\n"
"counts[users[r]] += 1 (int64), in row order (the sums of np.bincount with weights).");

static PyObject *
cpairs_gather_sums(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[5];
    if (!PyArg_ParseTuple(args, "OOOOO:gather_sums", &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4])) {
        return NULL;
    }
    Py_buffer b[5];
    int held = 0;
    PyObject *result = NULL;
    if (code_buffer(objs[0], &b[0], 0, "gather_sums: users", 1) < 0) {
        goto done;
    }
    held++;
    if (code_buffer(objs[1], &b[1], 0, "gather_sums: items", 1) < 0) {
        goto done;
    }
    held++;
    for (int i = 2; i < 5; i++) {
        if (PyObject_GetBuffer(objs[i], &b[i], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                                   (i > 2 ? PyBUF_WRITABLE : 0)) < 0) {
            goto done;
        }
        held++;
        const char *f = b[i].format ? b[i].format : "B";
        if (b[i].itemsize != 8 || (i < 4 ? f[0] != 'd' : (f[0] != 'l' && f[0] != 'q'))) {
            PyErr_SetString(PyExc_TypeError,
                            "gather_sums: values and sums must be float64, counts int64");
            goto done;
        }
    }
    Py_ssize_t n = b[0].len / 4, n_values = b[2].len / 8, n_users = b[3].len / 8;
    if (b[1].len / 4 != n || b[4].len / 8 != n_users) {
        PyErr_SetString(PyExc_ValueError, "gather_sums: arrays differ in length");
        goto done;
    }
    const int32_t *users = b[0].buf, *items = b[1].buf;
    const double *values = b[2].buf;
    double *sums = b[3].buf;
    int64_t *counts = b[4].buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t u = users[r], i = items[r];
        if (u < 0 || u >= n_users || i < 0 || i >= n_values) {
            bad = 1;
            break;
        }
        sums[u] += values[i];
        counts[u]++;
    }
    Py_END_ALLOW_THREADS
    result = bad ? out_of_range("gather_sums: a code out of range") : Py_NewRef(Py_None);
done:
    return released(b, held, result);
}

PyDoc_STRVAR(count_codes_doc,
"count_codes(codes, out, /)\n"
"--\n\n"
"np.bincount without the cast to intp: out[c] += 1 (int64 out) or out[c] = 1 (uint8 or\n"
"bool out) for every code c (int32 or int64, in [0, len(out))); ValueError otherwise.");

static PyObject *
cpairs_count_codes(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *codes_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OO:count_codes", &codes_obj, &out_obj)) {
        return NULL;
    }
    Py_buffer codes, out;
    int width = code_buffer(codes_obj, &codes, 0, "count_codes: codes", 0);
    if (width < 0) {
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&codes);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = codes.len / width, size = out.itemsize == 8 ? out.len / 8 : out.len;
    if (out.itemsize != 1 && out.itemsize != 8) {
        PyErr_SetString(PyExc_TypeError, "count_codes: out must be int64, uint8 or bool");
        goto done;
    }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    if (out.itemsize == 8) {
        int64_t *o = out.buf;
        for (Py_ssize_t r = 0; r < n; r++) {
            int64_t c = code_at(codes.buf, width, r);
            if (c < 0 || c >= size) {
                bad = 1;
                break;
            }
            o[c]++;
        }
    } else {
        uint8_t *o = out.buf;
        for (Py_ssize_t r = 0; r < n; r++) {
            int64_t c = code_at(codes.buf, width, r);
            if (c < 0 || c >= size) {
                bad = 1;
                break;
            }
            o[c] = 1;
        }
    }
    Py_END_ALLOW_THREADS
    result = bad ? out_of_range("count_codes: a code out of range") : Py_NewRef(Py_None);
done:
    PyBuffer_Release(&codes);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(take_codes_doc,
"take_codes(table, values, out, /)\n"
"--\n\n"
"out[r] = table[values[r]] (table and out of one type, int32 or int64; values int32 or\n"
"int64 in [0, len(table))): np.take without the cast of the indices to intp. Returns\n"
"how many codes written are negative.");

static PyObject *
cpairs_take_codes(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "OOO:take_codes", &objs[0], &objs[1], &objs[2])) {
        return NULL;
    }
    Py_buffer b[3];
    int widths[3], held = 0;
    PyObject *result = NULL;
    static const char *names[3] = {"take_codes: table", "take_codes: values",
                                   "take_codes: out"};
    for (int i = 0; i < 3; i++) {
        if ((widths[i] = code_buffer(objs[i], &b[i], i == 2, names[i], 0)) < 0) {
            goto done;
        }
        held++;
    }
    Py_ssize_t size = b[0].len / widths[0], n = b[1].len / widths[1];
    if (widths[0] != widths[2] || b[2].len / widths[2] != n) {
        PyErr_SetString(PyExc_ValueError, "take_codes: table and out differ in type or length");
        goto done;
    }
    int bad = 0;
    Py_ssize_t negative = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n; r++) {
        int64_t v = code_at(b[1].buf, widths[1], r);
        if (v < 0 || v >= size) {
            bad = 1;
            break;
        }
        if (widths[0] == 4) {
            int32_t code = ((const int32_t *)b[0].buf)[v];
            ((int32_t *)b[2].buf)[r] = code;
            negative += code < 0;
        } else {
            int64_t code = ((const int64_t *)b[0].buf)[v];
            ((int64_t *)b[2].buf)[r] = code;
            negative += code < 0;
        }
    }
    Py_END_ALLOW_THREADS
    result = bad ? out_of_range("take_codes: a value out of range") : PyLong_FromSsize_t(negative);
done:
    return released(b, held, result);
}


/* Row a sorts before row b: its key is better (higher score, or lower rank). */
static inline int
key_before(const double *keys, int descending, int64_t a, int64_t b)
{
    return descending ? keys[a] > keys[b] : keys[a] < keys[b];
}

/* Rows rows[0..n) sorted by key, ties in row order (stable merge sort; scratch holds n). */
static void
stable_by_key(int64_t *rows, int64_t n, const double *keys, int descending, int64_t *scratch)
{
    if (n <= 16) { /* insertion sort: stable, fastest on short runs */
        for (int64_t p = 1; p < n; p++) {
            int64_t row = rows[p], q = p;
            while (q > 0 && key_before(keys, descending, row, rows[q - 1])) {
                rows[q] = rows[q - 1];
                q--;
            }
            rows[q] = row;
        }
        return;
    }
    int64_t half = n / 2;
    stable_by_key(rows, half, keys, descending, scratch);
    stable_by_key(rows + half, n - half, keys, descending, scratch);
    if (!key_before(keys, descending, rows[half], rows[half - 1])) {
        return; /* the halves are in order already */
    }
    memcpy(scratch, rows, (size_t)half * sizeof(int64_t));
    int64_t a = 0, b = half, out = 0;
    while (a < half && b < n) { /* a tie takes the left (earlier) row: stable */
        rows[out++] = key_before(keys, descending, rows[b], scratch[a]) ? rows[b++] : scratch[a++];
    }
    while (a < half) {
        rows[out++] = scratch[a++];
    }
}

/*
 * 0 when the rows come grouped by user (a user's rows contiguous) and each user's rows in
 * key order, with ranks 1, 2, ... written (ranks NULL: not written); 1 when not; -1 for a code out of range.
 * `seen` (n_users bytes, zeroed) marks the users met. With items (stamps: n_items zeroed
 * int32), *repeated is set when a user's rows hold an item twice.
 */
static int
check_order(const int32_t *users, Py_ssize_t n, const double *keys, int descending,
            int64_t n_users, uint8_t *seen, int32_t *ranks, const int32_t *items,
            int64_t n_items, int32_t *stamps, int *repeated)
{
    int32_t rank = 0;
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t user = users[r];
        if (user < 0 || user >= n_users) {
            return -1;
        }
        if (items != NULL) { /* a user's items stamped with the user: a repeat finds its own */
            int32_t item = items[r];
            if (item < 0 || item >= n_items) {
                return -1;
            }
            *repeated |= stamps[item] == user + 1;
            stamps[item] = user + 1;
        }
        if (r == 0 || user != users[r - 1]) {
            if (seen[user]) {
                return 1; /* the user's rows come in two runs */
            }
            seen[user] = 1;
            rank = 0;
        } else if (keys != NULL && key_before(keys, descending, r, r - 1)) {
            return 1;
        }
        ++rank;
        if (ranks != NULL) {
            ranks[r] = rank;
        }
    }
    return 0;
}

/*
 * The rows grouped by user (code ascending, a counting sort), each user's rows sorted by
 * key with ties in row order: the order of np.lexsort((key, users)). Ranks in that order
 * (ranks NULL: none written).
 * 0, -1 when out of memory, -3 for a code out of range.
 */
static int
sort_rows(const int32_t *users, Py_ssize_t n, const double *keys, int descending,
          int64_t n_users, int64_t *order, int32_t *ranks)
{
    int64_t *start = calloc((size_t)n_users + 1, sizeof(int64_t));
    if (start == NULL) {
        return -1;
    }
    for (Py_ssize_t r = 0; r < n; r++) {
        if (users[r] < 0 || users[r] >= n_users) {
            free(start);
            return -3;
        }
        start[users[r] + 1]++;
    }
    int64_t longest = 0;
    for (int64_t u = 0; u < n_users; u++) {
        longest = start[u + 1] > longest ? start[u + 1] : longest;
        start[u + 1] += start[u];
    }
    int64_t *next = malloc(((size_t)n_users + (size_t)longest / 2 + 1) * sizeof(int64_t));
    if (next == NULL) {
        free(start);
        return -1;
    }
    int64_t *scratch = next + n_users;
    memcpy(next, start, (size_t)n_users * sizeof(int64_t));
    for (Py_ssize_t r = 0; r < n; r++) {
        order[next[users[r]]++] = r;
    }
    for (int64_t u = 0; u < n_users; u++) {
        int64_t lo = start[u], hi = start[u + 1];
        if (keys != NULL && hi - lo > 1) {
            stable_by_key(order + lo, hi - lo, keys, descending, scratch);
        }
        for (int64_t p = lo; ranks != NULL && p < hi; p++) {
            ranks[p] = (int32_t)(p - lo + 1);
        }
    }
    free(next);
    free(start);
    return 0;
}

PyDoc_STRVAR(order_lists_doc,
"order_lists(users, keys, descending, n_users, order, ranks, items=None, n_items=0, /)\n"
"--\n\n"
"Recommendation rows (int32 user codes in [0, n_users)) in rank order: each user's rows\n"
"by keys (float64; descending: higher first; None: row order), ties in row order. Returns\n"
"0 when the rows come so already (grouped by user, each user's rows in order: one pass,\n"
"order untouched), else 1 with order (int64) the permutation of np.lexsort((key, users))\n"
"(a counting sort by user, a stable sort inside each user). ranks (int32) gets each row's\n"
"1-based position in its user's list, in the order of the result (ranks None: not\n"
"written). With items (int32 codes\n"
"in [0, n_items)), rows in order that hold an item twice for a user return 2 instead of\n"
"0 (0 then also says no pair repeats). ValueError for a code out of range.");

static PyObject *
cpairs_order_lists(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *users_obj, *keys_obj, *order_obj, *ranks_obj, *items_obj = Py_None;
    int descending;
    long long n_users, n_items = 0;
    if (!PyArg_ParseTuple(args, "OOpLOO|OL:order_lists", &users_obj, &keys_obj, &descending,
                          &n_users, &order_obj, &ranks_obj, &items_obj, &n_items)) {
        return NULL;
    }
    Py_buffer b[5];
    int held = 0, has_keys = keys_obj != Py_None, has_items = items_obj != Py_None;
    int has_ranks = ranks_obj != Py_None, items_at = -1, keys_at = -1;
    PyObject *result = NULL;
    if (code_buffer(users_obj, &b[held], 0, "order_lists: users", 1) < 0) {
        goto done;
    }
    held++;
    if (has_ranks && code_buffer(ranks_obj, &b[held], 1, "order_lists: ranks", 1) < 0) {
        goto done;
    }
    held += has_ranks;
    if (PyObject_GetBuffer(order_obj, &b[held], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        goto done;
    }
    int order_at = held++;
    if (has_keys) {
        if (PyObject_GetBuffer(keys_obj, &b[held], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            goto done;
        }
        keys_at = held++;
        if (b[keys_at].itemsize != 8 || b[keys_at].format == NULL ||
            b[keys_at].format[0] != 'd') {
            PyErr_SetString(PyExc_TypeError, "order_lists: keys must be float64");
            goto done;
        }
    }
    if (has_items) {
        if (code_buffer(items_obj, &b[held], 0, "order_lists: items", 1) < 0) {
            goto done;
        }
        items_at = held++;
    }
    Py_ssize_t n = b[0].len / 4;
    if ((has_ranks && b[1].len / 4 != n) || b[order_at].len / 8 != n ||
        b[order_at].itemsize != 8 || (has_keys && b[keys_at].len / 8 != n) ||
        (has_items && b[items_at].len / 4 != n)) {
        PyErr_SetString(PyExc_ValueError, "order_lists: arrays differ in length");
        goto done;
    }
    if (n_users < 0 || n_users >= ((long long)1 << 31)) {
        PyErr_SetString(PyExc_ValueError, "order_lists: n_users out of range");
        goto done;
    }
    if (has_items && (n_items < 0 || n_items >= ((long long)1 << 31))) {
        PyErr_SetString(PyExc_ValueError, "order_lists: n_items out of range");
        goto done;
    }
    uint8_t *seen = calloc((size_t)n_users + 1, 1);
    int32_t *stamps = has_items ? calloc((size_t)n_items + 1, sizeof(int32_t)) : NULL;
    if (seen == NULL || (has_items && stamps == NULL)) {
        free(seen);
        free(stamps);
        PyErr_NoMemory();
        goto done;
    }
    const int32_t *users = b[0].buf;
    const double *keys = has_keys ? b[keys_at].buf : NULL;
    const int32_t *items = has_items ? b[items_at].buf : NULL;
    int32_t *ranks = has_ranks ? b[1].buf : NULL;
    int status, repeated = 0;
    Py_BEGIN_ALLOW_THREADS
    status = check_order(users, n, keys, descending, n_users, seen, ranks, items, n_items,
                         stamps, &repeated);
    if (status == 0 && repeated) {
        status = 2;
    }
    if (status == 1) {
        int sorted = sort_rows(users, n, keys, descending, n_users, b[order_at].buf, ranks);
        status = sorted == -3 ? -1 : sorted < 0 ? -2 : 1;
    }
    Py_END_ALLOW_THREADS
    free(seen);
    free(stamps);
    if (status == -1) {
        result = out_of_range("order_lists: a user or item code out of range");
    } else if (status == -2) {
        result = PyErr_NoMemory();
    } else {
        result = PyLong_FromLong(status);
    }
done:
    return released(b, held, result);
}

typedef struct {
    const char *users, *items;      /* ids, int32 or int64, in [0, n_users) and [0, n_items) */
    int user_width, item_width;
    int64_t n_users, n_items;
    const double *keys;             /* NULL: the rows' own order */
    int descending;
    int64_t depth;
    uint8_t *seen;                  /* per user id: its rows met (zeroed) */
    int32_t *stamps;                /* per item id: the last list (1-based) holding it (zeroed) */
    int64_t *out_items, *list_users, *list_sizes; /* the first `depth` item ids of each
                                                     list, its user id, how many */
    int64_t kept, lists;            /* rows written to out_items, lists found */
} Heads;

/*
 * One pass over every row: 0 when the rows come grouped by user, each user's rows in key
 * order and no user's rows hold an item twice, with the first `depth` item ids of each
 * list written; 1 when not grouped or not in order, 2 for an item twice in a user's rows,
 * -1 for an id out of range. Afterwards seen and stamps say which ids the rows hold.
 */
static int
head_rows(Heads *h, Py_ssize_t n)
{
    int64_t rank = 0, kept = 0, lists = 0, user = -1;
    for (Py_ssize_t r = 0; r < n; r++) {
        int64_t u = code_at(h->users, h->user_width, r);
        int64_t i = code_at(h->items, h->item_width, r);
        if (u < 0 || i < 0 || u >= h->n_users || i >= h->n_items) {
            return -1;
        }
        if (u != user) {
            if (h->seen[u]) {
                return 1; /* the user's rows come in two runs */
            }
            h->seen[u] = 1;
            user = u;
            rank = 0;
            h->list_users[lists] = u;
            h->list_sizes[lists++] = 0;
        } else if (h->keys != NULL && key_before(h->keys, h->descending, r, r - 1)) {
            return 1;
        }
        if (h->stamps[i] == (int32_t)lists) { /* each list's items stamped with the list */
            return 2;
        }
        h->stamps[i] = (int32_t)lists;
        if (++rank <= h->depth) {
            h->out_items[kept++] = i;
            h->list_sizes[lists - 1] = rank;
        }
    }
    h->kept = kept;
    h->lists = lists;
    return 0;
}

PyDoc_STRVAR(head_lists_doc,
"head_lists(users, items, keys, descending, depth, seen, stamps, out_items, list_users,\n"
"           list_sizes, /)\n"
"--\n\n"
"The first depth items of each recommendation list, in one pass over every row: users and\n"
"items are non-negative ids (int32 or int64) below len(seen) (uint8, zeroed) and\n"
"len(stamps) (int32, zeroed). Returns (status, rows, lists): status 0 when the rows come\n"
"grouped by user, each user's rows by keys (float64; descending: higher first; None: row\n"
"order) and no user's rows hold an item twice, with out_items the first depth item ids of\n"
"each list, list_users each list's user id and list_sizes how many items it kept (all\n"
"int64); seen and stamps are then non-zero at the ids the rows hold. 1 when the rows are\n"
"not in that order, 2 for an item twice in a user's rows (outputs not usable). ValueError\n"
"for an id out of range, outputs too short or fewer than 2**31 - 1 lists.");

static PyObject *
cpairs_head_lists(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *objs[9];
    int descending;
    long long depth;
    if (!PyArg_ParseTuple(args, "OOOpLOOOOO:head_lists", &objs[0], &objs[1], &objs[2],
                          &descending, &depth, &objs[3], &objs[4], &objs[5], &objs[6],
                          &objs[7])) {
        return NULL;
    }
    Py_buffer b[8];
    int held = 0;
    PyObject *result = NULL;
    Heads h = {.descending = descending, .depth = depth};
    if ((h.user_width = code_buffer(objs[0], &b[held++], 0, "head_lists: users", 0)) < 0 ||
        (h.item_width = code_buffer(objs[1], &b[held++], 0, "head_lists: items", 0)) < 0) {
        held--;
        goto done;
    }
    Py_ssize_t n = b[0].len / h.user_width;
    if (objs[2] != Py_None) {
        if (PyObject_GetBuffer(objs[2], &b[held], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            goto done;
        }
        held++;
        if (b[2].itemsize != 8 || b[2].format == NULL || b[2].format[0] != 'd' ||
            b[2].len / 8 != n) {
            PyErr_SetString(PyExc_TypeError, "head_lists: keys must be float64, one a row");
            goto done;
        }
        h.keys = b[2].buf;
    }
    int first_out = held;
    for (int k = 3; k < 8; k++) { /* seen, stamps, then the three int64 outputs */
        if (PyObject_GetBuffer(objs[k], &b[held], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
            goto done;
        }
        held++;
    }
    Py_buffer *seen = &b[first_out], *stamps = &b[first_out + 1], *outs = &b[first_out + 2];
    h.n_users = seen->len;
    h.n_items = stamps->len / 4;
    /* at most one list per user, and depth rows of each */
    int64_t lists_max = h.n_users < (int64_t)n ? h.n_users : (int64_t)n;
    int64_t rows_max = depth < 1 || lists_max > (int64_t)n / depth ? (int64_t)n
                                                                   : lists_max * depth;
    if (seen->itemsize != 1 || stamps->itemsize != 4 || outs[0].itemsize != 8 ||
        outs[1].itemsize != 8 || outs[2].itemsize != 8 || depth < 1 ||
        b[1].len / h.item_width != n || lists_max >= ((int64_t)1 << 31) - 1 ||
        outs[0].len / 8 < rows_max || outs[1].len / 8 < lists_max ||
        outs[2].len / 8 < lists_max) {
        PyErr_SetString(PyExc_ValueError, "head_lists: arrays or sizes do not match");
        goto done;
    }
    h.users = b[0].buf;
    h.items = b[1].buf;
    h.seen = seen->buf;
    h.stamps = stamps->buf;
    h.out_items = outs[0].buf;
    h.list_users = outs[1].buf;
    h.list_sizes = outs[2].buf;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = head_rows(&h, n);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        result = out_of_range("head_lists: a user or item id out of range");
    } else {
        result = Py_BuildValue("iLL", status, (long long)(status == 0 ? h.kept : 0),
                               (long long)(status == 0 ? h.lists : 0));
    }
done:
    return released(b, held, result);
}

static PyMethodDef cpairs_methods[] = {
    {"order_lists", cpairs_order_lists, METH_VARARGS, order_lists_doc},
    {"head_lists", cpairs_head_lists, METH_VARARGS, head_lists_doc},
    {"join_pairs", cpairs_join_pairs, METH_VARARGS, join_pairs_doc},
    {"gather_sums", cpairs_gather_sums, METH_VARARGS, gather_sums_doc},
    {"count_codes", cpairs_count_codes, METH_VARARGS, count_codes_doc},
    {"take_codes", cpairs_take_codes, METH_VARARGS, take_codes_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cpairs_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.ranking._cpairs",
    .m_doc = "User-item pairs of recommender lists joined by user, ordered and counted "
             "(see rankwise.recommenders.inputs).",
    .m_size = -1,
    .m_methods = cpairs_methods,
};

PyMODINIT_FUNC
PyInit__cpairs(void)
{
    return PyModule_Create(&cpairs_module);
}
