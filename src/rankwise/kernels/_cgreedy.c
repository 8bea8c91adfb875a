/*
 * rankwise.kernels._cgreedy: ndeval's greedy ideal ranking, query by query.
 *
 * For each query, its candidates (the judged documents relevant to at least
 * one of its subtopics), each with the topics it is relevant to (ascending:
 * ndeval's summation order) and its docno. At each position the candidate of
 * greatest novelty gain sum_t powers[count[t]] is placed (of equal gains,
 * the greatest docno in byte order, as ndeval's strcmp; a document without a
 * docno, a retrieved unjudged one taken as relevant, before any), then the
 * count of each of its topics grows by one; the gain of each position is
 * written out. The same arithmetic as the numpy version of
 * rankwise.kernels.subtopics (and as ndeval): sums formed in topic order
 * from 0.0, powers of (1 - alpha) by repeated multiplication, exact float
 * comparison. The GIL is released while it runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Py_buffer view;
    int held;
} Buffer;

static int
get_buffer(PyObject *object, Buffer *buffer, Py_ssize_t itemsize, int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, &buffer->view, flags) < 0) {
        return -1;
    }
    buffer->held = 1;
    if (buffer->view.len % itemsize != 0) {
        PyErr_Format(PyExc_ValueError, "greedy: %s has the wrong item size", what);
        return -1;
    }
    return 0;
}

static void
release(Buffer *buffer)
{
    if (buffer->held) {
        PyBuffer_Release(&buffer->view);
        buffer->held = 0;
    }
}

/* Whether docno a sorts after docno b in byte order (-1: no docno, after every docno). */
static inline int
docno_after(int64_t a, int64_t b, const int32_t *offsets, const unsigned char *data)
{
    if (a < 0 || b < 0) {
        return a < 0 && b >= 0;
    }
    size_t na = (size_t)(offsets[a + 1] - offsets[a]), nb = (size_t)(offsets[b + 1] - offsets[b]);
    int c = memcmp(data + offsets[a], data + offsets[b], na < nb ? na : nb);
    return c > 0 || (c == 0 && na > nb);
}

/*
 * greedy(query_offsets, pair_offsets, pair_topic, powers, gain_offsets, gains_out, counts_out,
 *        candidate_doc, doc_offsets, doc_data)
 *   query_offsets int64[Q + 1]: candidates of query q are query_offsets[q] .. [q + 1]
 *   pair_offsets  int64[E + 1]: topics of candidate e are pair_topic[pair_offsets[e] .. [e + 1]]
 *   pair_topic    int64[P]:     topic indices (global, < the length of counts_out)
 *   powers        float64[S + 1]: (1 - alpha)^c, c = 0..S
 *   gain_offsets  int64[Q + 1]: room for the gains of query q (at most S positions each)
 *   gains_out     float64:      the gain placed at each position
 *   counts_out    int64[T]:     work space, one count per topic (zeroed on entry)
 *   candidate_doc int64[E]:     each candidate's docno (an index into the strings), -1: none
 *   doc_offsets   int32[D + 1], doc_data uint8: the docnos (an Arrow string array's buffers)
 * Returns the number of positions written per query as a list.
 */
static PyObject *
greedy(PyObject *self, PyObject *args)
{
    enum { N = 10 };
    PyObject *objects[N];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4], &objects[5], &objects[6], &objects[7], &objects[8],
                          &objects[9])) {
        return NULL;
    }
    Buffer b[N];
    memset(b, 0, sizeof(b));
    static const char *names[N] = {"query_offsets", "pair_offsets", "pair_topic", "powers",
                                   "gain_offsets", "gains_out", "counts_out", "candidate_doc",
                                   "doc_offsets", "doc_data"};
    static const Py_ssize_t sizes[N] = {8, 8, 8, 8, 8, 8, 8, 8, 4, 1};
    static const int writable[N] = {0, 0, 0, 0, 0, 1, 1, 0, 0, 0};
    PyObject *result = NULL;
    char *alive = NULL;
    for (int i = 0; i < N; i++) {
        if (get_buffer(objects[i], &b[i], sizes[i], writable[i], names[i]) < 0) {
            goto done;
        }
    }
    const int64_t *query_offsets = b[0].view.buf;
    const int64_t *pair_offsets = b[1].view.buf;
    const int64_t *pair_topic = b[2].view.buf;
    const double *powers = b[3].view.buf;
    const int64_t *gain_offsets = b[4].view.buf;
    double *gains = b[5].view.buf;
    int64_t *counts = b[6].view.buf;
    const int64_t *candidate_doc = b[7].view.buf;
    const int32_t *doc_offsets = b[8].view.buf;
    const unsigned char *doc_data = b[9].view.buf;
    Py_ssize_t n_docs = b[8].view.len / 4 - 1;
    Py_ssize_t n_queries = b[0].view.len / 8 - 1;
    Py_ssize_t n_candidates = b[1].view.len / 8 - 1;
    Py_ssize_t n_pairs = b[2].view.len / 8;
    Py_ssize_t n_powers = b[3].view.len / 8;
    Py_ssize_t n_topics = b[6].view.len / 8;
    Py_ssize_t n_gains = b[5].view.len / 8;
    if (n_queries < 0 || n_candidates < 0 || b[4].view.len / 8 != n_queries + 1 ||
        n_powers < 1 || b[7].view.len / 8 != n_candidates || n_docs < 0) {
        PyErr_SetString(PyExc_ValueError, "greedy: inconsistent array lengths");
        goto done;
    }
    /* check every index once, so the loop below cannot read or write out of bounds */
    for (Py_ssize_t q = 0; q <= n_queries; q++) {
        if (query_offsets[q] < 0 || query_offsets[q] > n_candidates ||
            (q > 0 && query_offsets[q] < query_offsets[q - 1]) || gain_offsets[q] < 0 ||
            gain_offsets[q] > n_gains || (q > 0 && gain_offsets[q] < gain_offsets[q - 1])) {
            PyErr_SetString(PyExc_ValueError, "greedy: bad query offsets");
            goto done;
        }
    }
    for (Py_ssize_t e = 0; e <= n_candidates; e++) {
        if (pair_offsets[e] < 0 || pair_offsets[e] > n_pairs ||
            (e > 0 && pair_offsets[e] < pair_offsets[e - 1])) {
            PyErr_SetString(PyExc_ValueError, "greedy: bad candidate offsets");
            goto done;
        }
    }
    for (Py_ssize_t d = 0; d <= n_docs; d++) {
        if (doc_offsets[d] < 0 || doc_offsets[d] > b[9].view.len ||
            (d > 0 && doc_offsets[d] < doc_offsets[d - 1])) {
            PyErr_SetString(PyExc_ValueError, "greedy: bad docno offsets");
            goto done;
        }
    }
    for (Py_ssize_t e = 0; e < n_candidates; e++) {
        if (candidate_doc[e] < -1 || candidate_doc[e] >= n_docs) {
            PyErr_SetString(PyExc_ValueError, "greedy: docno out of range");
            goto done;
        }
    }
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        if (pair_topic[p] < 0 || pair_topic[p] >= n_topics) {
            PyErr_SetString(PyExc_ValueError, "greedy: topic out of range");
            goto done;
        }
    }
    result = PyList_New(n_queries);
    alive = malloc((size_t)n_candidates + 1);
    if (result == NULL || alive == NULL) {
        Py_CLEAR(result);
        PyErr_NoMemory();
        goto done;
    }
    int64_t *written = malloc(sizeof(int64_t) * ((size_t)n_queries + 1));
    if (written == NULL) {
        Py_CLEAR(result);
        PyErr_NoMemory();
        goto done;
    }
    memset(alive, 1, (size_t)n_candidates + 1);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        int64_t first = query_offsets[q], last = query_offsets[q + 1];
        int64_t room = gain_offsets[q + 1] - gain_offsets[q];
        int64_t placed = 0;
        while (placed < room) {
            int64_t best = -1;
            double best_score = 0.0;
            for (int64_t e = first; e < last; e++) {
                if (!alive[e]) {
                    continue;
                }
                double score = 0.0;
                for (int64_t p = pair_offsets[e]; p < pair_offsets[e + 1]; p++) {
                    int64_t c = counts[pair_topic[p]];
                    score += powers[c < n_powers ? c : n_powers - 1];
                }
                if (best < 0 || score > best_score ||
                    (score == best_score &&
                     docno_after(candidate_doc[e], candidate_doc[best], doc_offsets, doc_data))) {
                    best = e;
                    best_score = score;
                }
            }
            if (best < 0 || !(best_score > 0.0)) {
                break; /* nothing of gain left: the rest adds nothing */
            }
            gains[gain_offsets[q] + placed] = best_score;
            placed++;
            alive[best] = 0;
            for (int64_t p = pair_offsets[best]; p < pair_offsets[best + 1]; p++) {
                counts[pair_topic[p]]++;
            }
        }
        written[q] = placed;
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        PyObject *count = PyLong_FromLongLong(written[q]);
        if (count == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, q, count);
    }
    free(written);
done:
    free(alive);
    for (int i = 0; i < N; i++) {
        release(&b[i]);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"greedy", greedy, METH_VARARGS, "ndeval's greedy ideal ranking of each query."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cgreedy", "ndeval's greedy ideal ranking in C.", -1, methods,
};

PyMODINIT_FUNC
PyInit__cgreedy(void)
{
    return PyModule_Create(&module);
}
