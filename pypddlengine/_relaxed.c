/* The relaxed exploration of heuristics.RelaxedTask.explore, in C.
 *
 * Optional accelerator: the package builds it when a C compiler is there and
 * falls back to the pure-Python exploration otherwise (same results; the
 * tests compare both on every task they explore). It mirrors the Python loop
 * step for step, so the settling order, the costs and the best supporters are
 * exactly the Python ones:
 *
 *   - operators hold a packed counter: (own cost + preconditions' costs so
 *     far) << shift | preconditions still to settle;
 *   - atoms wait in a bucket per cost value, read first in, first out; the
 *     buckets are taken cheapest first (a heap of their cost values); an atom
 *     whose cost dropped after it was queued is skipped where it was queued;
 *   - with "stop", the search ends when the last goal atom is settled.
 *
 * explore(by_pre_ptr, by_pre_idx, add_ptr, add_idx, packed, goal_flag, shift,
 *         first, additive, stop, n_goals, cost_out, sup_out) -> None
 *
 *   by_pre_ptr  int64[n_atoms + 2]  CSR offsets: atom -> operators it is a precondition of
 *   by_pre_idx  int32[...]          operator indices
 *   add_ptr     int64[n_ops + 1]    CSR offsets: operator -> atoms it adds
 *   add_idx     int32[...]          atom indices
 *   packed      int64[n_ops]        the initial packed counters (read only)
 *   goal_flag   uint8[n_atoms + 1]  1 for goal atoms
 *   first       iterable of int     the atoms that hold (cost 0)
 *   cost_out    float64[n_atoms + 1] written: every entry (inf when unreached)
 *   sup_out     int32[n_atoms + 1]   written: every entry (-1 when none)
 *
 * The caller (heuristics.py) builds the arrays and checks their sizes once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the next atom id of an iterator, in [0, limit): 1 with *a set, 0 at the end, -1 with a Python error set */
static int next_atom(PyObject *it, Py_ssize_t limit, const char *who, Py_ssize_t *a) {
    PyObject *item = PyIter_Next(it);
    if (!item) return PyErr_Occurred() ? -1 : 0;
    *a = PyLong_AsSsize_t(item);
    Py_DECREF(item);
    if (*a == -1 && PyErr_Occurred()) return -1;
    if (*a < 0 || *a >= limit) {
        PyErr_Format(PyExc_IndexError, "%s: atom out of range", who);
        return -1;
    }
    return 1;
}

typedef struct {
    int32_t *items;
    Py_ssize_t len, cap;
} Bucket;

typedef struct {
    /* open addressing: cost value -> bucket index, never deleted (costs only grow) */
    int64_t *keys;
    int32_t *vals;
    Py_ssize_t size; /* a power of two */
    Py_ssize_t used;
    Bucket *buckets;
    Py_ssize_t n_buckets, cap_buckets;
    int64_t *heap; /* cost values of buckets still to read */
    Py_ssize_t heap_len, heap_cap;
} Queue;

#define EMPTY_KEY INT64_MIN

static void queue_free(Queue *q) {
    for (Py_ssize_t i = 0; i < q->n_buckets; i++) free(q->buckets[i].items);
    free(q->buckets);
    free(q->keys);
    free(q->vals);
    free(q->heap);
}

static int queue_init(Queue *q) {
    memset(q, 0, sizeof(*q));
    q->size = 1024;
    q->keys = malloc(q->size * sizeof(int64_t));
    q->vals = malloc(q->size * sizeof(int32_t));
    q->cap_buckets = 64;
    q->buckets = calloc(q->cap_buckets, sizeof(Bucket));
    q->heap_cap = 64;
    q->heap = malloc(q->heap_cap * sizeof(int64_t));
    if (!q->keys || !q->vals || !q->buckets || !q->heap) return -1;
    for (Py_ssize_t i = 0; i < q->size; i++) q->keys[i] = EMPTY_KEY;
    return 0;
}

static inline Py_ssize_t slot_of(int64_t key, Py_ssize_t size) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
    return (Py_ssize_t)(h >> 20) & (size - 1);
}

static int table_grow(Queue *q) {
    Py_ssize_t old_size = q->size;
    int64_t *old_keys = q->keys;
    int32_t *old_vals = q->vals;
    Py_ssize_t size = old_size * 2;
    int64_t *keys = malloc(size * sizeof(int64_t));
    int32_t *vals = malloc(size * sizeof(int32_t));
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) keys[i] = EMPTY_KEY;
    for (Py_ssize_t i = 0; i < old_size; i++) {
        if (old_keys[i] == EMPTY_KEY) continue;
        Py_ssize_t s = slot_of(old_keys[i], size);
        while (keys[s] != EMPTY_KEY) s = (s + 1) & (size - 1);
        keys[s] = old_keys[i];
        vals[s] = old_vals[i];
    }
    free(old_keys);
    free(old_vals);
    q->keys = keys;
    q->vals = vals;
    q->size = size;
    return 0;
}

static int heap_push(Queue *q, int64_t key) {
    if (q->heap_len == q->heap_cap) {
        Py_ssize_t cap = q->heap_cap * 2;
        int64_t *h = realloc(q->heap, cap * sizeof(int64_t));
        if (!h) return -1;
        q->heap = h;
        q->heap_cap = cap;
    }
    Py_ssize_t i = q->heap_len++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (q->heap[parent] <= key) break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = key;
    return 0;
}

static int64_t heap_pop(Queue *q) {
    int64_t top = q->heap[0];
    int64_t last = q->heap[--q->heap_len];
    Py_ssize_t n = q->heap_len, i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && q->heap[child + 1] < q->heap[child]) child++;
        if (q->heap[child] >= last) break;
        q->heap[i] = q->heap[child];
        i = child;
    }
    if (n) q->heap[i] = last;
    return top;
}

/* the bucket of cost value key, made (and its key queued) if it is new; -1 on memory error */
static Py_ssize_t bucket_of(Queue *q, int64_t key) {
    Py_ssize_t s = slot_of(key, q->size);
    while (q->keys[s] != EMPTY_KEY) {
        if (q->keys[s] == key) return q->vals[s];
        s = (s + 1) & (q->size - 1);
    }
    if (q->n_buckets == q->cap_buckets) {
        Py_ssize_t cap = q->cap_buckets * 2;
        Bucket *b = realloc(q->buckets, cap * sizeof(Bucket));
        if (!b) return -1;
        memset(b + q->cap_buckets, 0, (cap - q->cap_buckets) * sizeof(Bucket));
        q->buckets = b;
        q->cap_buckets = cap;
    }
    Py_ssize_t index = q->n_buckets++;
    q->keys[s] = key;
    q->vals[s] = (int32_t)index;
    if (++q->used * 2 > q->size && table_grow(q) < 0) return -1;
    if (heap_push(q, key) < 0) return -1;
    return index;
}

static int bucket_append(Bucket *b, int32_t atom) {
    if (b->len == b->cap) {
        Py_ssize_t cap = b->cap ? b->cap * 2 : 256;
        int32_t *items = realloc(b->items, cap * sizeof(int32_t));
        if (!items) return -1;
        b->items = items;
        b->cap = cap;
    }
    b->items[b->len++] = atom;
    return 0;
}

static int64_t bucket_lookup(Queue *q, int64_t key) {
    Py_ssize_t s = slot_of(key, q->size);
    while (q->keys[s] != key) s = (s + 1) & (q->size - 1);
    return q->vals[s];
}

static PyObject *explore(PyObject *self, PyObject *args) {
    Py_buffer by_pre_ptr, by_pre_idx, add_ptr, add_idx, packed0, goal_flag, cost_out, sup_out;
    int shift, additive, stop;
    Py_ssize_t n_goals;
    PyObject *first;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*iOppnw*w*", &by_pre_ptr, &by_pre_idx, &add_ptr, &add_idx,
                          &packed0, &goal_flag, &shift, &first, &additive, &stop, &n_goals, &cost_out,
                          &sup_out))
        return NULL;
    PyObject *result = NULL;
    int64_t *packed = NULL;
    Queue q;
    int queue_ok = queue_init(&q) == 0; /* queue_free copes with a half-made queue */
    Py_ssize_t n = cost_out.len / (Py_ssize_t)sizeof(double); /* atoms + the always-true one */
    Py_ssize_t n_ops = packed0.len / (Py_ssize_t)sizeof(int64_t);
    if (!queue_ok) {
        PyErr_NoMemory();
        goto done;
    }
    if (sup_out.len != n * (Py_ssize_t)sizeof(int32_t) || goal_flag.len != n ||
        by_pre_ptr.len != (n + 1) * (Py_ssize_t)sizeof(int64_t) ||
        add_ptr.len != (n_ops + 1) * (Py_ssize_t)sizeof(int64_t) ||
        ((int64_t *)by_pre_ptr.buf)[n] * (Py_ssize_t)sizeof(int32_t) != by_pre_idx.len ||
        ((int64_t *)add_ptr.buf)[n_ops] * (Py_ssize_t)sizeof(int32_t) != add_idx.len) {
        PyErr_SetString(PyExc_ValueError, "explore: array sizes do not match");
        goto done;
    }
    packed = malloc((n_ops ? n_ops : 1) * sizeof(int64_t));
    if (!packed) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(packed, packed0.buf, n_ops * sizeof(int64_t));
    const int64_t *bp = by_pre_ptr.buf, *ap = add_ptr.buf;
    const int32_t *bi = by_pre_idx.buf, *ai = add_idx.buf;
    const uint8_t *is_goal = goal_flag.buf;
    double *cost = cost_out.buf;
    int32_t *sup = sup_out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        cost[i] = INFINITY;
        sup[i] = -1;
    }
    Py_ssize_t zero = bucket_of(&q, 0);
    if (zero < 0) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *it = PyObject_GetIter(first);
    if (!it) goto done;
    Py_ssize_t a;
    while (next_atom(it, n - 1, "explore", &a) > 0) {
        cost[a] = 0;
        if (bucket_append(&q.buckets[zero], (int32_t)a) < 0) {
            PyErr_NoMemory();
            break;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) goto done;
    cost[n - 1] = 0; /* the always-true atom */
    if (bucket_append(&q.buckets[zero], (int32_t)(n - 1)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t left = stop ? n_goals : -1;
    const int64_t low = ((int64_t)1 << shift) - 1;
    while (q.heap_len) {
        int64_t b = heap_pop(&q);
        Py_ssize_t bi_index = bucket_lookup(&q, b);
        int64_t step = additive ? ((b << shift) - 1) : -1;
        int64_t extra = additive ? 0 : b;
        double bd = (double)b;
        /* the bucket may grow while it is read (zero-cost operators): re-read its fields each time */
        for (Py_ssize_t k = 0; k < q.buckets[bi_index].len; k++) {
            int32_t a = q.buckets[bi_index].items[k];
            if (cost[a] != bd) continue;
            if (is_goal[a]) {
                if (--left == 0) goto finished;
            }
            for (int64_t e = bp[a]; e < bp[a + 1]; e++) {
                int32_t o = bi[e];
                int64_t v = packed[o] + step;
                packed[o] = v;
                if (v & low) continue;
                int64_t c = (v >> shift) + extra;
                double cd = (double)c;
                Py_ssize_t target = -1;
                for (int64_t f = ap[o]; f < ap[o + 1]; f++) {
                    int32_t t = ai[f];
                    if (cd < cost[t]) {
                        cost[t] = cd;
                        sup[t] = o;
                        if (target < 0) {
                            target = bucket_of(&q, c);
                            if (target < 0) {
                                PyErr_NoMemory();
                                goto done;
                            }
                        }
                        if (bucket_append(&q.buckets[target], t) < 0) {
                            PyErr_NoMemory();
                            goto done;
                        }
                    }
                }
            }
        }
        free(q.buckets[bi_index].items);
        q.buckets[bi_index].items = NULL;
        q.buckets[bi_index].len = q.buckets[bi_index].cap = 0;
    }
finished:
    result = Py_None;
    Py_INCREF(result);
done:
    queue_free(&q);
    free(packed);
    PyBuffer_Release(&by_pre_ptr);
    PyBuffer_Release(&by_pre_idx);
    PyBuffer_Release(&add_ptr);
    PyBuffer_Release(&add_idx);
    PyBuffer_Release(&packed0);
    PyBuffer_Release(&goal_flag);
    PyBuffer_Release(&cost_out);
    PyBuffer_Release(&sup_out);
    return result;
}

/* ------------------------------------------------------------------ landmarks
 *
 * labels(by_pre_ptr, by_pre_idx, add_ptr, add_idx, pre_ptr, pre_idx, init, remaining, goals)
 *     -> (label_of, common_of)
 *
 * Zhu & Givan's label propagation as landmarks.python_labels runs it (same
 * queue order), with a label kept as a sorted array of atom ids instead of a
 * bitset. The landmarks are the union of the goals' labels. label_of maps
 * every landmark, and every goal, to its label as a sorted tuple (None for a
 * goal without one: unreachable); common_of maps every landmark not
 * initially true to the atoms that all its achievers applicable in the
 * relaxation need (sorted tuple; empty when there is none). "remaining"
 * (int32[n_ops], preconditions per operator, at least 1) is updated in
 * place: 0 for operators that became applicable in the relaxation. goals is
 * int32[].
 */

typedef struct {
    int32_t *v;
    Py_ssize_t len; /* -1: no label yet */
} Label;

/* out = a | b (sorted, no duplicates); returns its length */
static Py_ssize_t merge_union(const int32_t *a, Py_ssize_t na, const int32_t *b, Py_ssize_t nb, int32_t *out) {
    Py_ssize_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) out[k++] = a[i++];
        else if (b[j] < a[i]) out[k++] = b[j++];
        else {
            out[k++] = a[i++];
            j++;
        }
    }
    while (i < na) out[k++] = a[i++];
    while (j < nb) out[k++] = b[j++];
    return k;
}

/* out = (a & b) | {q} (sorted, no duplicates); returns its length */
static Py_ssize_t meet_with(const int32_t *a, Py_ssize_t na, const int32_t *b, Py_ssize_t nb, int32_t q, int32_t *out) {
    Py_ssize_t i = 0, j = 0, k = 0;
    int has_q = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (b[j] < a[i]) j++;
        else {
            has_q |= a[i] == q;
            out[k++] = a[i];
            i++;
            j++;
        }
    }
    if (!has_q) {
        Py_ssize_t pos = k;
        while (pos > 0 && out[pos - 1] > q) pos--;
        memmove(out + pos + 1, out + pos, (k - pos) * sizeof(int32_t));
        out[pos] = q;
        k++;
    }
    return k;
}

static PyObject *labels(PyObject *self, PyObject *args) {
    Py_buffer by_pre_ptr, by_pre_idx, add_ptr, add_idx, pre_ptr, pre_idx, rem, goals_buf;
    PyObject *init;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*Ow*y*", &by_pre_ptr, &by_pre_idx, &add_ptr, &add_idx, &pre_ptr,
                          &pre_idx, &init, &rem, &goals_buf))
        return NULL;
    PyObject *label_of = NULL, *common_of = NULL;
    Label *common = NULL;
    uint8_t *member = NULL;
    PyObject *result = NULL;
    Py_ssize_t n1 = by_pre_ptr.len / (Py_ssize_t)sizeof(int64_t) - 1; /* atoms + the always-true one */
    Py_ssize_t n_ops = rem.len / (Py_ssize_t)sizeof(int32_t);
    Label *label = NULL;
    uint8_t *fixed = NULL, *seen = NULL;
    int32_t *u = NULL, *u2 = NULL, *t = NULL;
    Bucket fifo = {NULL, 0, 0}; /* the queue of atoms whose label changed */
    Py_ssize_t head = 0;
    if (n1 < 1 || add_ptr.len != (n_ops + 1) * (Py_ssize_t)sizeof(int64_t) || pre_ptr.len != add_ptr.len ||
        ((int64_t *)by_pre_ptr.buf)[n1] * (Py_ssize_t)sizeof(int32_t) != by_pre_idx.len ||
        ((int64_t *)add_ptr.buf)[n_ops] * (Py_ssize_t)sizeof(int32_t) != add_idx.len ||
        ((int64_t *)pre_ptr.buf)[n_ops] * (Py_ssize_t)sizeof(int32_t) != pre_idx.len) {
        PyErr_SetString(PyExc_ValueError, "labels: array sizes do not match");
        goto done;
    }
    label = malloc(n1 * sizeof(Label));
    fixed = calloc(n1, 1);
    seen = calloc(n1, 1);
    u = malloc((n1 + 1) * sizeof(int32_t));
    u2 = malloc((n1 + 1) * sizeof(int32_t));
    t = malloc((n1 + 1) * sizeof(int32_t));
    if (!label || !fixed || !seen || !u || !u2 || !t) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n1; i++) label[i].v = NULL, label[i].len = -1;
    const int64_t *bp = by_pre_ptr.buf, *ap = add_ptr.buf, *pp = pre_ptr.buf;
    const int32_t *bi = by_pre_idx.buf, *ai = add_idx.buf, *pi = pre_idx.buf;
    int32_t *remaining = rem.buf;
    Py_ssize_t n = n1 - 1;
    label[n].len = 0; /* the always-true atom */
    PyObject *it = PyObject_GetIter(init);
    if (!it) goto done;
    Py_ssize_t a;
    while (next_atom(it, n, "labels", &a) > 0) {
        if (label[a].len < 0) {
            label[a].v = malloc(sizeof(int32_t));
            if (!label[a].v) {
                PyErr_NoMemory();
                break;
            }
            label[a].v[0] = (int32_t)a;
            label[a].len = 1;
        }
        fixed[a] = 1;
        if (bucket_append(&fifo, (int32_t)a) < 0) {
            PyErr_NoMemory();
            break;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) goto done;
    if (bucket_append(&fifo, (int32_t)n) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    while (head < fifo.len) {
        int32_t a = fifo.items[head++];
        int first = !seen[a];
        seen[a] = 1;
        for (int64_t e = bp[a]; e < bp[a + 1]; e++) {
            int32_t o = bi[e];
            if (first) {
                if (--remaining[o]) continue;
            } else if (remaining[o]) {
                continue;
            }
            Py_ssize_t ulen = -1;
            for (int64_t f = ap[o]; f < ap[o + 1]; f++) {
                int32_t q = ai[f];
                if (fixed[q]) continue;
                if (ulen < 0) {
                    ulen = 0;
                    for (int64_t g = pp[o]; g < pp[o + 1]; g++) {
                        Label *l = &label[pi[g]];
                        ulen = merge_union(u, ulen, l->v, l->len, u2);
                        int32_t *swap = u;
                        u = u2;
                        u2 = swap;
                    }
                }
                Label *old = &label[q];
                Py_ssize_t tlen;
                if (old->len < 0) {
                    int32_t single = q;
                    tlen = merge_union(u, ulen, &single, 1, t);
                } else {
                    tlen = meet_with(old->v, old->len, u, ulen, q, t);
                }
                if (tlen == old->len && memcmp(t, old->v, tlen * sizeof(int32_t)) == 0) continue;
                int32_t *v = malloc((tlen ? tlen : 1) * sizeof(int32_t));
                if (!v) {
                    PyErr_NoMemory();
                    goto done;
                }
                memcpy(v, t, tlen * sizeof(int32_t));
                free(old->v);
                old->v = v;
                old->len = tlen;
                if (bucket_append(&fifo, q) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
        }
    }
    /* the landmarks: the union of the goals' labels */
    const int32_t *goals = goals_buf.buf;
    Py_ssize_t n_goals = goals_buf.len / (Py_ssize_t)sizeof(int32_t);
    member = calloc(n1, 1);
    common = malloc(n1 * sizeof(Label));
    if (!member || !common) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n1; i++) common[i].v = NULL, common[i].len = -1;
    for (Py_ssize_t g = 0; g < n_goals; g++) {
        if (goals[g] < 0 || goals[g] >= n) {
            PyErr_SetString(PyExc_IndexError, "labels: goal atom out of range");
            goto done;
        }
        Label *l = &label[goals[g]];
        for (Py_ssize_t k = 0; k < l->len; k++) member[l->v[k]] = 1;
    }
    /* a landmark q not initially true: the atoms that every achiever of q applicable in the relaxation needs */
    for (Py_ssize_t o = 0; o < n_ops; o++) {
        if (remaining[o] > 0) continue;
        Py_ssize_t np = (Py_ssize_t)(pp[o + 1] - pp[o]);
        int32_t *sorted = u; /* scratch: the operator's preconditions, sorted (insertion sort: a handful) */
        Py_ssize_t ns = 0;
        for (Py_ssize_t k = 0; k < np; k++) {
            int32_t x = pi[pp[o] + k];
            Py_ssize_t pos = ns;
            while (pos > 0 && sorted[pos - 1] > x) pos--;
            if (pos > 0 && sorted[pos - 1] == x) continue;
            memmove(sorted + pos + 1, sorted + pos, (ns - pos) * sizeof(int32_t));
            sorted[pos] = x;
            ns++;
        }
        for (int64_t f = ap[o]; f < ap[o + 1]; f++) {
            int32_t q = ai[f];
            if (!member[q] || fixed[q]) continue;
            Label *c = &common[q];
            if (c->len < 0) {
                c->v = malloc((ns ? ns : 1) * sizeof(int32_t));
                if (!c->v) {
                    PyErr_NoMemory();
                    goto done;
                }
                memcpy(c->v, sorted, ns * sizeof(int32_t));
                c->len = ns;
            } else if (c->len) {
                Py_ssize_t i = 0, j = 0, k = 0;
                while (i < c->len && j < ns) {
                    if (c->v[i] < sorted[j]) i++;
                    else if (sorted[j] < c->v[i]) j++;
                    else c->v[k++] = c->v[i++], j++;
                }
                c->len = k;
            }
        }
    }
    label_of = PyDict_New();
    common_of = PyDict_New();
    if (!label_of || !common_of) goto done;
    for (Py_ssize_t a = 0; a < n1; a++) { /* every landmark's label, and its achievers' common preconditions */
        if (!member[a]) continue;
        for (int which = 0; which < 2; which++) {
            Label *l = which == 0 ? &label[a] : &common[a];
            if (which == 1 && fixed[a]) continue;
            PyObject *entry = PyTuple_New(l->len > 0 ? l->len : 0);
            if (!entry) goto done;
            for (Py_ssize_t k = 0; k < l->len; k++) {
                PyObject *x = PyLong_FromLong(l->v[k]);
                if (!x) {
                    Py_DECREF(entry);
                    goto done;
                }
                PyTuple_SET_ITEM(entry, k, x);
            }
            PyObject *key = PyLong_FromSsize_t(a);
            int bad = !key || PyDict_SetItem(which == 0 ? label_of : common_of, key, entry) < 0;
            Py_XDECREF(key);
            Py_DECREF(entry);
            if (bad) goto done;
        }
    }
    for (Py_ssize_t g = 0; g < n_goals; g++) {
        if (label[goals[g]].len >= 0) continue;
        PyObject *key = PyLong_FromLong(goals[g]);
        int bad = !key || PyDict_SetItem(label_of, key, Py_None) < 0;
        Py_XDECREF(key);
        if (bad) goto done;
    }
    result = PyTuple_Pack(2, label_of, common_of);
done:
    Py_XDECREF(label_of);
    Py_XDECREF(common_of);
    if (common)
        for (Py_ssize_t i = 0; i < n1; i++) free(common[i].v);
    free(common);
    free(member);
    if (label)
        for (Py_ssize_t i = 0; i < n1; i++) free(label[i].v);
    free(label);
    free(fixed);
    free(seen);
    free(u);
    free(u2);
    free(t);
    free(fifo.items);
    PyBuffer_Release(&by_pre_ptr);
    PyBuffer_Release(&by_pre_idx);
    PyBuffer_Release(&add_ptr);
    PyBuffer_Release(&add_idx);
    PyBuffer_Release(&pre_ptr);
    PyBuffer_Release(&pre_idx);
    PyBuffer_Release(&rem);
    PyBuffer_Release(&goals_buf);
    return result;
}

/* transpose(ptr, idx, ptr_out, idx_out, empty_col) -> None
 *
 * Compressed rows turned into compressed columns: ptr int64[rows + 1] and idx
 * int32[] in; ptr_out int64[cols + 1] and idx_out int32[] written, a row
 * listed under every column it names, in row order, and a row that names
 * none under empty_col (the operators without preconditions wait for the
 * always-true atom). idx_out has room for len(idx) + the empty rows.
 */
static PyObject *transpose(PyObject *self, PyObject *args) {
    Py_buffer ptr, idx, ptr_out, idx_out;
    Py_ssize_t empty_col;
    if (!PyArg_ParseTuple(args, "y*y*w*w*n", &ptr, &idx, &ptr_out, &idx_out, &empty_col)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = ptr.len / (Py_ssize_t)sizeof(int64_t) - 1;
    Py_ssize_t cols = ptr_out.len / (Py_ssize_t)sizeof(int64_t) - 1;
    Py_ssize_t cap = idx_out.len / (Py_ssize_t)sizeof(int32_t);
    const int64_t *p = ptr.buf;
    const int32_t *x = idx.buf;
    int64_t *po = ptr_out.buf;
    int32_t *xo = idx_out.buf;
    Py_ssize_t needed = 0;
    int ok = rows >= 0 && cols >= 1 && empty_col >= 0 && empty_col < cols &&
             p[rows] == idx.len / (Py_ssize_t)sizeof(int32_t);
    for (Py_ssize_t r = 0; ok && r < rows; r++) {
        needed += p[r + 1] > p[r] ? p[r + 1] - p[r] : 1;
        for (int64_t e = p[r]; e < p[r + 1]; e++) ok &= x[e] >= 0 && x[e] < cols;
    }
    if (!ok || needed != cap) {
        PyErr_SetString(PyExc_ValueError, "transpose: array sizes or entries do not match");
        goto done;
    }
    memset(po, 0, (cols + 1) * sizeof(int64_t));
    for (Py_ssize_t r = 0; r < rows; r++) {
        if (p[r + 1] == p[r]) po[empty_col + 1]++;
        for (int64_t e = p[r]; e < p[r + 1]; e++) po[x[e] + 1]++;
    }
    for (Py_ssize_t c = 0; c < cols; c++) po[c + 1] += po[c];
    int64_t *fill = malloc((cols ? cols : 1) * sizeof(int64_t));
    if (!fill) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(fill, po, cols * sizeof(int64_t));
    for (Py_ssize_t r = 0; r < rows; r++) {
        if (p[r + 1] == p[r]) xo[fill[empty_col]++] = (int32_t)r;
        for (int64_t e = p[r]; e < p[r + 1]; e++) xo[fill[x[e]]++] = (int32_t)r;
    }
    free(fill);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&ptr);
    PyBuffer_Release(&idx);
    PyBuffer_Release(&ptr_out);
    PyBuffer_Release(&idx_out);
    return result;
}

/* pack(rows) -> (offsets, entries, largest)
 *
 * A list of tuples (or lists) of non-negative ints as compressed rows: offsets
 * (int64[len(rows) + 1]) and entries (int32[]) as bytes, and the largest
 * entry (-1 when there is none).
 */
static PyObject *pack(PyObject *self, PyObject *arg) {
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "pack: a list of tuples");
        return NULL;
    }
    Py_ssize_t rows = PyList_GET_SIZE(arg), total = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        PyObject *row = PyList_GET_ITEM(arg, r);
        if (!PyTuple_Check(row) && !PyList_Check(row)) {
            PyErr_SetString(PyExc_TypeError, "pack: a list of tuples or lists");
            return NULL;
        }
        total += PySequence_Fast_GET_SIZE(row);
    }
    PyObject *offsets = PyBytes_FromStringAndSize(NULL, (rows + 1) * (Py_ssize_t)sizeof(int64_t));
    PyObject *entries = PyBytes_FromStringAndSize(NULL, total * (Py_ssize_t)sizeof(int32_t));
    if (!offsets || !entries) goto fail;
    int64_t *po = (int64_t *)PyBytes_AS_STRING(offsets);
    int32_t *pe = (int32_t *)PyBytes_AS_STRING(entries);
    long largest = -1;
    Py_ssize_t k = 0;
    po[0] = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        PyObject *row = PyList_GET_ITEM(arg, r);
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(row); i++) {
            long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, i));
            if (x == -1 && PyErr_Occurred()) goto fail;
            if (x < 0 || x > INT32_MAX) {
                PyErr_SetString(PyExc_ValueError, "pack: entries must be int32 and not negative");
                goto fail;
            }
            if (x > largest) largest = x;
            pe[k++] = (int32_t)x;
        }
        po[r + 1] = k;
    }
    PyObject *result = Py_BuildValue("(NNl)", offsets, entries, largest);
    return result;
fail:
    Py_XDECREF(offsets);
    Py_XDECREF(entries);
    return NULL;
}

/* ------------------------------------------------------------------ LM-cut
 *
 * lmcut(pre_ptr, pre_idx, add_ptr, add_idx, by_pre_ptr, by_pre_idx, by_add_ptr, by_add_idx, cost, state) -> int
 *
 * The LM-cut value of a state (Helmert and Domshlak 2009) exactly as
 * lmcut.LMCut.python_value computes it (same queue order, so the same
 * supporters and cuts): -1 when the goal is unreachable in the relaxation.
 * Operators (compressed rows, offsets int64, entries int32) have at least
 * one precondition; atom n_atoms - 2 always holds (the precondition of an
 * action without one), atom n_atoms - 1 is the goal, added by a zero-cost
 * operator needing the goal atoms. cost: int64[n_ops], not negative, whose
 * sum is below 2**31 (checked by the caller). state: an iterable of atom ids.
 */

static int heap64_push(uint64_t **heap, Py_ssize_t *len, Py_ssize_t *cap, uint64_t key) {
    if (*len == *cap) {
        Py_ssize_t c = *cap ? *cap * 2 : 256;
        uint64_t *h = realloc(*heap, c * sizeof(uint64_t));
        if (!h) return -1;
        *heap = h;
        *cap = c;
    }
    uint64_t *h = *heap;
    Py_ssize_t i = (*len)++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (h[parent] <= key) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = key;
    return 0;
}

static uint64_t heap64_pop(uint64_t *h, Py_ssize_t *len) {
    uint64_t top = h[0];
    uint64_t last = h[--(*len)];
    Py_ssize_t n = *len, i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && h[child + 1] < h[child]) child++;
        if (h[child] >= last) break;
        h[i] = h[child];
        i = child;
    }
    if (n) h[i] = last;
    return top;
}

#define LM_INF INT64_MAX
#define LM_ZONE 1
#define LM_REACHED 2

/* the cheapest queued atom, its value in *v; -1 when that entry is stale (the atom got cheaper since) */
static inline int32_t lm_pop(uint64_t *heap, Py_ssize_t *len, const int64_t *hm, int64_t *v) {
    uint64_t key = heap64_pop(heap, len);
    int32_t a = (int32_t)(key & 0xffffffffu);
    *v = (int64_t)(key >> 32);
    return *v > hm[a] ? -1 : a;
}

/* operator o's effects at cost c: each atom it makes cheaper is lowered and queued; -1 when out of memory */
static int lm_lower(const int64_t *ap, const int32_t *ai, int32_t o, int64_t c, int64_t *hm, uint64_t **heap,
                    Py_ssize_t *len, Py_ssize_t *cap) {
    for (int64_t f = ap[o]; f < ap[o + 1]; f++) {
        int32_t q = ai[f];
        if (c < hm[q]) {
            hm[q] = c;
            if (heap64_push(heap, len, cap, (uint64_t)c << 32 | (uint64_t)q) < 0) return -1;
        }
    }
    return 0;
}

static PyObject *lmcut(PyObject *self, PyObject *args) {
    Py_buffer pre_ptr, pre_idx, add_ptr, add_idx, by_pre_ptr, by_pre_idx, by_add_ptr, by_add_idx, cost0;
    PyObject *state;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*O", &pre_ptr, &pre_idx, &add_ptr, &add_idx, &by_pre_ptr,
                          &by_pre_idx, &by_add_ptr, &by_add_idx, &cost0, &state))
        return NULL;
    PyObject *result = NULL;
    int64_t *hm = NULL, *cost = NULL, *supc = NULL;
    int32_t *unsat = NULL, *sup = NULL, *stamp = NULL, *init = NULL, *stack = NULL, *cut = NULL;
    uint8_t *status = NULL;
    uint64_t *heap = NULL;
    Py_ssize_t heap_len = 0, heap_cap = 0, n_init = 0;
    Py_ssize_t n_ops = cost0.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n = by_pre_ptr.len / (Py_ssize_t)sizeof(int64_t) - 1; /* atoms, the two extra ones included */
    const int64_t *pp = pre_ptr.buf, *ap = add_ptr.buf, *bp = by_pre_ptr.buf, *dp = by_add_ptr.buf;
    const int32_t *pi = pre_idx.buf, *ai = add_idx.buf, *bi = by_pre_idx.buf, *di = by_add_idx.buf;
    if (n < 2 || n >= INT32_MAX || by_add_ptr.len != by_pre_ptr.len ||
        pre_ptr.len != (n_ops + 1) * (Py_ssize_t)sizeof(int64_t) || add_ptr.len != pre_ptr.len ||
        pp[n_ops] * (Py_ssize_t)sizeof(int32_t) != pre_idx.len || ap[n_ops] * (Py_ssize_t)sizeof(int32_t) != add_idx.len ||
        bp[n] * (Py_ssize_t)sizeof(int32_t) != by_pre_idx.len || dp[n] * (Py_ssize_t)sizeof(int32_t) != by_add_idx.len) {
        PyErr_SetString(PyExc_ValueError, "lmcut: array sizes do not match");
        goto done;
    }
    Py_ssize_t ops = n_ops ? n_ops : 1;
    hm = malloc(n * sizeof(int64_t));
    cost = malloc(ops * sizeof(int64_t));
    unsat = malloc(ops * sizeof(int32_t));
    sup = malloc(ops * sizeof(int32_t));
    supc = malloc(ops * sizeof(int64_t));
    stamp = malloc(ops * sizeof(int32_t));
    cut = malloc(ops * sizeof(int32_t));
    init = malloc(n * sizeof(int32_t));
    stack = malloc(n * sizeof(int32_t));
    status = calloc(n, 1);
    if (!hm || !cost || !supc || !stamp || !unsat || !sup || !cut || !init || !stack || !status) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(cost, cost0.buf, n_ops * sizeof(int64_t));
    const int32_t truth = (int32_t)(n - 2), goal = (int32_t)(n - 1);
    PyObject *it = PyObject_GetIter(state);
    if (!it) goto done;
    Py_ssize_t a;
    while (next_atom(it, truth, "lmcut", &a) > 0) {
        if (!status[a]) { /* a set has no duplicates, but any iterable may come */
            status[a] = 1;
            init[n_init++] = (int32_t)a;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) goto done;
    init[n_init++] = truth;
    int64_t total = 0;
    /* h_max with supporters (the precondition settled last) and their values */
    for (Py_ssize_t i = 0; i < n; i++) hm[i] = LM_INF;
    for (Py_ssize_t o = 0; o < n_ops; o++) {
        unsat[o] = (int32_t)(pp[o + 1] - pp[o]);
        sup[o] = -1;
        stamp[o] = 0;
    }
    for (Py_ssize_t k = 0; k < n_init; k++) {
        hm[init[k]] = 0;
        if (heap64_push(&heap, &heap_len, &heap_cap, (uint64_t)init[k]) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    while (heap_len) {
        int64_t v;
        int32_t a = lm_pop(heap, &heap_len, hm, &v);
        if (a < 0) continue;
        for (int64_t e = bp[a]; e < bp[a + 1]; e++) {
            int32_t o = bi[e];
            if (--unsat[o]) continue;
            sup[o] = a;
            supc[o] = v;
            if (lm_lower(ap, ai, o, v + cost[o], hm, &heap, &heap_len, &heap_cap) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    for (int32_t round = 1;; round++) {
        if (hm[goal] == LM_INF) {
            total = -1;
            break;
        }
        if (hm[goal] == 0) break;
        /* the goal zone: atoms from which zero-cost supported operators reach the goal */
        memset(status, 0, n);
        Py_ssize_t top = 0;
        status[goal] = LM_ZONE;
        stack[top++] = goal;
        while (top) {
            int32_t q = stack[--top];
            for (int64_t e = dp[q]; e < dp[q + 1]; e++) {
                int32_t o = di[e];
                if (cost[o] == 0 && sup[o] >= 0 && status[sup[o]] != LM_ZONE) {
                    status[sup[o]] = LM_ZONE;
                    stack[top++] = sup[o];
                }
            }
        }
        /* forward from the state through supporters, outside the zone: the operators entering it are the cut */
        for (Py_ssize_t k = 0; k < n_init; k++) {
            status[init[k]] = LM_REACHED;
            stack[top++] = init[k];
        }
        Py_ssize_t n_cut = 0;
        while (top) {
            int32_t p = stack[--top];
            for (int64_t e = bp[p]; e < bp[p + 1]; e++) {
                int32_t o = bi[e];
                if (sup[o] != p || stamp[o] == round) continue;
                stamp[o] = round; /* met once, even when listed twice under p */
                int entering = 0;
                for (int64_t f = ap[o]; f < ap[o + 1]; f++) {
                    int32_t q = ai[f];
                    if (status[q] == LM_ZONE) {
                        entering = 1;
                    } else if (!status[q]) {
                        status[q] = LM_REACHED;
                        stack[top++] = q;
                    }
                }
                if (entering) cut[n_cut++] = o;
            }
        }
        if (!n_cut) break; /* cannot happen for a finite positive h_max; stays admissible regardless */
        int64_t m = LM_INF;
        for (Py_ssize_t k = 0; k < n_cut; k++)
            if (cost[cut[k]] < m) m = cost[cut[k]];
        if (m <= 0) break; /* likewise impossible: a cut operator has a positive cost */
        total += m;
        /* h_max again, incrementally: only the cut operators got cheaper (as Fast Downward's LM-cut does) */
        heap_len = 0;
        for (Py_ssize_t k = 0; k < n_cut; k++) {
            int32_t o = cut[k];
            cost[o] -= m;
            if (lm_lower(ap, ai, o, supc[o] + cost[o], hm, &heap, &heap_len, &heap_cap) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
        while (heap_len) {
            int64_t v;
            int32_t a = lm_pop(heap, &heap_len, hm, &v);
            if (a < 0) continue;
            for (int64_t e = bp[a]; e < bp[a + 1]; e++) {
                int32_t o = bi[e];
                if (sup[o] != a || supc[o] <= v) continue;
                int32_t best = -1; /* the first precondition of the largest value */
                int64_t bv = -1;
                for (int64_t f = pp[o]; f < pp[o + 1]; f++) {
                    if (hm[pi[f]] > bv) {
                        bv = hm[pi[f]];
                        best = pi[f];
                    }
                }
                sup[o] = best;
                int64_t old = supc[o];
                supc[o] = bv;
                if (bv != old && lm_lower(ap, ai, o, bv + cost[o], hm, &heap, &heap_len, &heap_cap) < 0) {
                    PyErr_NoMemory();
                    goto done;
                }
            }
        }
    }
    result = PyLong_FromLongLong(total);
done:
    free(hm);
    free(cost);
    free(unsat);
    free(sup);
    free(supc);
    free(stamp);
    free(cut);
    free(init);
    free(stack);
    free(status);
    free(heap);
    PyBuffer_Release(&pre_ptr);
    PyBuffer_Release(&pre_idx);
    PyBuffer_Release(&add_ptr);
    PyBuffer_Release(&add_idx);
    PyBuffer_Release(&by_pre_ptr);
    PyBuffer_Release(&by_pre_idx);
    PyBuffer_Release(&by_add_ptr);
    PyBuffer_Release(&by_add_idx);
    PyBuffer_Release(&cost0);
    return result;
}

static PyMethodDef methods[] = {
    {"pack", pack, METH_O, "A list of tuples as compressed rows (see heuristics.RelaxedTask.csr)."},
    {"transpose", transpose, METH_VARARGS, "Compressed rows to compressed columns (see heuristics.RelaxedTask.csr)."},
    {"explore", explore, METH_VARARGS, "The integer-cost relaxed exploration (see heuristics.RelaxedTask.explore)."},
    {"labels", labels, METH_VARARGS, "Zhu & Givan landmark labels (see landmarks.find_landmarks)."},
    {"lmcut", lmcut, METH_VARARGS, "The LM-cut value of a state (see lmcut.LMCut)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_relaxed", "C exploration for pypddlengine.heuristics",
                                    -1, methods};

PyMODINIT_FUNC PyInit__relaxed(void) { return PyModule_Create(&module); }
