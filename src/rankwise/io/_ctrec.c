/*
 * rankwise.io._ctrec: a fast reader for the common shape of TREC text files.
 *
 * One call parses the lines that start inside a byte range of a file (read
 * block by block with pread) or of a buffer, with the GIL released, so Python
 * threads can parse several ranges at once. It produces columns ready for
 * Arrow and numpy: the query of each block of lines (ids interned per range),
 * document ids (Arrow string offsets and data; interned codes for qrels),
 * scores (float64) or grades (int64), and optionally the rank column. For
 * runs it also checks, per block of consecutive lines of one query, that no
 * document is listed twice, and whether scores descend within each block.
 *
 * It accepts only input whose meaning is certain: fields separated by spaces
 * and tabs, LF or CRLF line ends, comment lines ('#' first) and blank lines,
 * UTF-8 ids, numbers in the decimal grammar pyarrow accepts. On anything else
 * (a control byte, a lone CR, a bad field count, a number it does not parse,
 * a non-finite score, a duplicate, invalid UTF-8) it declines: it returns a
 * string saying why, and the caller reads the file with the general reader,
 * which gives the precise error message. Declining is always safe.
 *
 * Numbers: a decimal with at most 19 significant digits, a mantissa up to
 * 2^53 and a power of ten within 1e+-22 is converted with one IEEE operation
 * (exact operands, so correctly rounded); a larger mantissa (up to 19 digits,
 * as Python's repr of a float writes 17) divided by at most 1e19 is rounded by
 * a candidate checked exactly in 128-bit integers (exact_quotient); every other
 * number goes to strtod (correctly rounded in glibc, musl and the MSVC
 * runtime), so the result always equals the correctly rounded value pyarrow
 * computes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define HAS_SSE2 1 /* lines split and scores read 16 bytes at a time */
#endif

#define RANKWISE_BLOCK_NAME "rankwise.io._ctrec.Block"
#include "rankwise_blocks.h"
#include "rankwise_interner.h"
#include "rankwise_strings.h"

#define LAYOUT_RUN 0
#define LAYOUT_QRELS 1
#define DEFAULT_MAX_LINE ((Py_ssize_t)1 << 20) /* bytes in one line, its end included */
#define MAX_FIELDS 6

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE __attribute__((always_inline))
#else
#define ALWAYS_INLINE
#endif

/* ------------------------------------------------------------------------ */
/* Byte classes, hashing, UTF-8, numbers                                     */

enum { C_DATA = 0, C_BLANK = 1, C_LF = 2, C_CR = 3, C_CONTROL = 4, C_HIGH = 5 };

static unsigned char byte_class[256];

static void
init_byte_class(void)
{
    for (int c = 0; c < 256; c++) {
        byte_class[c] = c >= 0x80 ? C_HIGH : (c < 0x20 ? C_CONTROL : C_DATA);
    }
    byte_class[' '] = C_BLANK;
    byte_class['\t'] = C_BLANK;
    byte_class['\n'] = C_LF;
    byte_class['\r'] = C_CR;
}

/* The end of the token that starts at p: the first byte <= 0x20 (blank, line end, control)
   or n. Sets *high when the token holds a byte >= 0x80. */
static inline size_t
token_end(const unsigned char *buf, size_t p, size_t n, int *high)
{
#ifdef WORDS_LITTLE_ENDIAN
    while (p + 8 <= n) {
        uint64_t w;
        memcpy(&w, buf + p, 8);
        /* a byte < 0x21 sets its top bit here; the lowest such byte is exact */
        uint64_t stop = (w - ONES * 0x21) & ~w & HIGHS;
        if (stop) {
            /* stop - 1: every bit below the first stop byte's top bit, i.e. the bytes before it */
            *high |= (w & HIGHS & (stop - 1)) != 0;
            return p + LOWEST_SET_BYTE(stop);
        }
        if (w & HIGHS) {
            *high = 1;
        }
        p += 8;
    }
#endif
    while (p < n && buf[p] > 0x20) {
        if (buf[p] & 0x80) {
            *high = 1;
        }
        p++;
    }
    return p;
}

/* Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF), as Arrow checks it. */
static int
valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
        }
        else if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) {
                return 0;
            }
            i += 2;
        }
        else if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) {
                return 0;
            }
            if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F)) {
                return 0;
            }
            i += 3;
        }
        else if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80) {
                return 0;
            }
            if ((c == 0xF0 && s[i + 1] < 0x90) || (c == 0xF4 && s[i + 1] > 0x8F)) {
                return 0;
            }
            i += 4;
        }
        else {
            return 0;
        }
    }
    return 1;
}

static const double powers_of_ten[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The powers of ten that fit in 64 bits, as integers (10^19 < 2^64). */
static const uint64_t integer_powers_of_ten[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
    10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
    100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
};

#define IS_DIGIT(c) ((unsigned)((c) - '0') < 10u)

#ifdef WORDS_LITTLE_ENDIAN
/* Which of the 8 bytes of w are ASCII digits: the top bit of each digit byte set. */
static inline MAYBE_UNUSED uint64_t
digit_bytes(uint64_t w)
{
    /* a digit is 0x30..0x39: high nibble 3, and adding 6 to the low nibble does not carry */
    uint64_t high_nibble_3 = ~((w & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL);
    uint64_t no_carry = ~(((w & 0x0F0F0F0F0F0F0F0FULL) + 0x0606060606060606ULL) & 0x1010101010101010ULL);
    /* per byte: all four high-nibble bits equal to 0011, and no carry out of the low nibble */
    uint64_t nibble_ok = high_nibble_3 & (high_nibble_3 >> 1) & (high_nibble_3 >> 2) &
                         (high_nibble_3 >> 3) & no_carry;
    return (nibble_ok & 0x1010101010101010ULL) << 3;
}

/*
 * The value of the run of at most 7 digits at the start of the 8 bytes w, and its length:
 * the digits are moved to the top of the word (leading zeros below) and combined two,
 * four, then eight at a time. Returns 8 in *count when all 8 bytes are digits.
 */
/* The value of the k digits (1 <= k <= 8) at the start of the 8 bytes w. */
static inline uint64_t
digits_value(uint64_t w, unsigned k)
{
    uint64_t d = (w - ONES * '0') << (8 * (8 - k)); /* k digits in the top bytes, zeros below */
    d = ((d * 10) + (d >> 8)) & 0x00FF00FF00FF00FFULL;         /* pairs */
    d = ((d * 100) + (d >> 16)) & 0x0000FFFF0000FFFFULL;       /* quads */
    return ((d * 10000) + (d >> 32)) & 0xFFFFFFFFULL;          /* eight */
}

static inline MAYBE_UNUSED uint64_t
leading_digits(uint64_t w, unsigned *count)
{
    uint64_t stops = ~digit_bytes(w) & HIGHS;
    unsigned k = stops ? LOWEST_SET_BYTE(stops) : 8;
    *count = k;
    if (k == 0 || k == 8) {
        return 0;
    }
    return digits_value(w, k);
}
#endif

/*
 * Parse a decimal number: [+-]? (digits [. digits*]? | . digits) ([eE] [+-]? digits)?
 * Returns 1 and sets *out, or 0 when the token is not in that grammar.
 */
static int parse_decimal(const unsigned char *s, size_t n, double *out);
static int parse_long_decimal(const unsigned char *s, size_t n, const unsigned char *limit,
                              double *out);

/*
 * Scores as runs write them, "12.345678": at most 7 digits on each side of the
 * point and no exponent, read a word at a time; everything else goes to
 * parse_decimal. `limit` is the end of the readable buffer. Returns 1 for a
 * finite number (in *out), 2 for one that is not finite (1e999), 0 for a token
 * outside the grammar; the common scores never reach the finiteness check.
 */
static inline ALWAYS_INLINE int
parse_double(const unsigned char *s, size_t n, const unsigned char *limit, double *out)
{
#if defined(HAS_SSE2) && defined(WORDS_LITTLE_ENDIAN)
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    size_t m = n - i; /* bytes after the sign */
    if (LIKELY(s + i + 16 <= limit && m > 0 && m < 16)) {
        /* which bytes are digits and which the point, in one step */
        const __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        const __m128i z = _mm_sub_epi8(x, _mm_set1_epi8('0'));
        const unsigned all = (1u << m) - 1;
        unsigned digits = (unsigned)_mm_movemask_epi8(
                              _mm_cmpeq_epi8(_mm_min_epu8(z, _mm_set1_epi8(9)), z)) & all;
        unsigned point = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('.'))) & all;
        /* digits with at most one point, at most 7 digits on each side of it */
        if ((digits | point) == all && (point & (point - 1)) == 0) {
            unsigned whole = point ? (unsigned)__builtin_ctz(point) : (unsigned)m;
            unsigned fraction = point ? (unsigned)m - whole - 1 : 0;
            if (whole < 8 && fraction < 8 && whole + fraction > 0) {
                uint64_t w, f;
                memcpy(&w, s + i, 8);
                memcpy(&f, s + i + whole + 1, 8); /* within the 16 bytes above */
                uint64_t digits_read;
                if (whole + fraction <= 8) { /* one word: the whole digits, then the fraction's */
                    uint64_t joined = (w & ((UINT64_C(1) << (8 * whole)) - 1)) | (f << (8 * whole));
                    digits_read = digits_value(joined, whole + fraction);
                }
                else {
                    digits_read = (whole ? digits_value(w, whole) : 0) *
                                      integer_powers_of_ten[fraction] +
                                  (fraction ? digits_value(f, fraction) : 0);
                }
                /* at most 14 digits (below 2^53, so a signed conversion is exact), and a
                   single division of exact operands rounds correctly */
                double v = (double)(int64_t)digits_read / powers_of_ten[fraction];
                *out = s[0] == '-' ? -v : v;
                return 1;
            }
        }
    }
#elif defined(WORDS_LITTLE_ENDIAN)
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (LIKELY(s + n + 8 <= limit)) { /* every 8-byte load below stays in the buffer */
        uint64_t w;
        unsigned whole, fraction = 0;
        memcpy(&w, s + i, 8);
        uint64_t value = leading_digits(w, &whole);
        size_t at = i + whole;
        uint64_t scale = 1;
        if (whole < 8 && at < n && s[at] == '.') {
            memcpy(&w, s + at + 1, 8);
            uint64_t part = leading_digits(w, &fraction);
            if (fraction < 8) {
                scale = integer_powers_of_ten[fraction];
                value = value * scale + part;
                at += 1 + fraction;
            }
        }
        if (whole < 8 && fraction < 8 && at == n && whole + fraction > 0) {
            /* at most 14 digits: exact, and a single division rounds correctly */
            double v = (double)value / (double)scale;
            *out = s[0] == '-' ? -v : v;
            return 1;
        }
    }
#else
    (void)limit;
#endif
    if (!parse_long_decimal(s, n, limit, out)) {
        return 0;
    }
    return isfinite(*out) ? 1 : 2;
}

#if defined(__SIZEOF_INT128__)
#define HAS_EXACT_QUOTIENT 1
/*
 * mantissa / 10^e correctly rounded (round half to even), for 2^53 < mantissa < 2^64 and
 * 0 <= e <= 19: the digits Python's repr of a float writes (17 significant digits), which
 * one IEEE division cannot round exactly (the mantissa itself is not a double). The
 * quotient of the two doubles is within an ulp or two of the answer; each candidate c =
 * m * 2^k is checked exactly in 128-bit integers against the two halfway points beside it,
 * (2m - 1) * 2^(k-1) and (2m + 1) * 2^(k-1), and moved one ulp toward the value until it
 * lies between them. Returns 0 (the caller uses strtod) where the check does not fit in
 * 128 bits, at a power of two (its lower halfway point is nearer), and below the normal
 * range.
 */
static int
exact_quotient(uint64_t mantissa, unsigned e, double *out)
{
    const int bits = 64 - __builtin_clzll(mantissa); /* mantissa > 0 */
    double c = (double)mantissa / powers_of_ten[e];
    for (int step = 0; step < 4; step++) {
        uint64_t word;
        memcpy(&word, &c, sizeof word);
        const int biased = (int)(word >> 52); /* c > 0: no sign bit */
        const uint64_t m = (word & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
        const int shift = 1 - (biased - 1075); /* c = m * 2^(biased - 1075) */
        if (biased == 0 || biased == 0x7FF || m == (UINT64_C(1) << 52) || shift < 0 ||
            shift + bits > 127) {
            return 0;
        }
        /* mantissa / 10^e against (2m +- 1) * 2^(k-1), both sides times 10^e * 2^(1-k) */
        const unsigned __int128 value = (unsigned __int128)mantissa << shift;
        const unsigned __int128 above = (unsigned __int128)(2 * m + 1) * integer_powers_of_ten[e];
        const unsigned __int128 below = (unsigned __int128)(2 * m - 1) * integer_powers_of_ten[e];
        if (value > above || (value == above && (m & 1))) {
            word++; /* the next double up */
        }
        else if (value < below || (value == below && (m & 1))) {
            word--;
        }
        else {
            *out = c;
            return 1;
        }
        memcpy(&c, &word, sizeof c);
    }
    return 0;
}
#endif

/*
 * A decimal without exponent, [+-]? digits [. digits], of at most 19 digits in all (the
 * 17 significant digits of Python's repr of a float), read 8 digits at a time and
 * rounded with one division or exact_quotient; anything else goes to parse_decimal.
 * `limit` is the end of the readable buffer.
 */
static int
parse_long_decimal(const unsigned char *s, size_t n, const unsigned char *limit, double *out)
{
#if defined(WORDS_LITTLE_ENDIAN)
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (s + n + 8 > limit) { /* every 8-byte load below stays in the buffer */
        return parse_decimal(s, n, out);
    }
    uint64_t mantissa = 0;
    unsigned digits = 0, fraction = 0, point = 0;
    while (i < n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t stops = ~digit_bytes(w) & HIGHS;
        unsigned k = stops ? LOWEST_SET_BYTE(stops) : 8;
        if (i + k > n) {
            k = (unsigned)(n - i);
        }
        if (k > 0) {
            if (digits + k > 19) {
                return parse_decimal(s, n, out);
            }
            mantissa = mantissa * integer_powers_of_ten[k] + digits_value(w, k);
            digits += k;
            fraction += point ? k : 0;
            i += k;
            if (k == 8) {
                continue;
            }
        }
        if (i < n && s[i] == '.' && !point) {
            point = 1;
            i++;
            continue;
        }
        break;
    }
    if (i != n || digits == 0) {
        return parse_decimal(s, n, out); /* an exponent, a second point, another byte */
    }
    double value;
    if (mantissa <= (UINT64_C(1) << 53)) {
        value = (double)(int64_t)mantissa / powers_of_ten[fraction];
    }
#ifdef HAS_EXACT_QUOTIENT
    else if (!exact_quotient(mantissa, fraction, &value)) {
        return parse_decimal(s, n, out);
    }
#else
    else {
        return parse_decimal(s, n, out);
    }
#endif
    *out = s[0] == '-' ? -value : value;
    return 1;
#else
    (void)limit;
    return parse_decimal(s, n, out);
#endif
}

static int
parse_decimal(const unsigned char *s, size_t n, double *out)
{
    size_t i = 0;
    int negative = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        negative = s[i] == '-';
        i++;
    }
    uint64_t mantissa = 0;
    int significant = 0, any_digit = 0, truncated = 0;
    long exponent = 0;
    while (i < n && IS_DIGIT(s[i])) {
        int d = s[i] - '0';
        any_digit = 1;
        if (mantissa == 0 && d == 0) {
            /* leading zero */
        }
        else if (significant < 19) {
            mantissa = mantissa * 10 + (uint64_t)d;
            significant++;
        }
        else {
            truncated = 1;
            exponent++;
        }
        i++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && IS_DIGIT(s[i])) {
            int d = s[i] - '0';
            any_digit = 1;
            if (mantissa == 0 && d == 0) {
                exponent--;
            }
            else if (significant < 19) {
                mantissa = mantissa * 10 + (uint64_t)d;
                significant++;
                exponent--;
            }
            else {
                truncated = 1;
            }
            i++;
        }
    }
    if (!any_digit) {
        return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int exponent_negative = 0;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            exponent_negative = s[i] == '-';
            i++;
        }
        if (i >= n || !IS_DIGIT(s[i])) {
            return 0;
        }
        long e = 0;
        while (i < n && IS_DIGIT(s[i])) {
            if (e < 100000) {
                e = e * 10 + (s[i] - '0');
            }
            i++;
        }
        exponent += exponent_negative ? -e : e;
    }
    if (i != n) {
        return 0;
    }
    if (!truncated && mantissa <= (1ULL << 53) && exponent >= -22 && exponent <= 22) {
        double value = (double)mantissa;
        value = exponent >= 0 ? value * powers_of_ten[exponent] : value / powers_of_ten[-exponent];
        *out = negative ? -value : value;
        return 1;
    }
#ifdef HAS_EXACT_QUOTIENT
    if (!truncated && mantissa > (1ULL << 53) && exponent >= -19 && exponent <= 0) {
        double value;
        if (exact_quotient(mantissa, (unsigned)-exponent, &value)) {
            *out = negative ? -value : value;
            return 1;
        }
    }
#endif
    char local[96];
    char *text = n < sizeof(local) ? local : malloc(n + 1);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, s, n);
    text[n] = '\0';
    char *end = NULL;
    double value = strtod(text, &end);
    int complete = end == text + n;
    if (text != local) {
        free(text);
    }
    if (!complete) {
        return 0;
    }
    *out = value;
    return 1;
}

/* Parse -?digits into an int64 (no overflow). Returns 1 on success. */
static int
parse_int64(const unsigned char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int negative = 0;
    if (i < n && s[i] == '-') {
        negative = 1;
        i++;
    }
    if (i >= n) {
        return 0;
    }
    uint64_t value = 0;
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (!IS_DIGIT(s[i])) {
            return 0;
        }
        uint64_t d = (uint64_t)(s[i] - '0');
        if (value > (limit - d) / 10) {
            return 0;
        }
        value = value * 10 + d;
    }
    *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return 1;
}

/* Interning ids within a range (rankwise_interner.h): hashed as hash_token hashes them */

/* The code of an id, added when new; -1 on memory failure. */
static inline int64_t
intern_token(Interner *in, const unsigned char *s, size_t n, const unsigned char *limit)
{
    int added;
    return interner_code_hashed(in, s, n, hash_token(s, n, limit), NULL, &added);
}

/* ------------------------------------------------------------------------ */
/* Documents seen in the current block of one query (a duplicate check)      */

typedef struct {
    uint64_t hash;
    uint32_t generation;
    int32_t row;
} Seen;

#include "rankwise_seen.h"

/*
 * Record document `row`, the n bytes at s (also docs[offsets[row]..offsets[row+1]]).
 * Returns 1 when it was already in the block, 0 when new, -1 on memory failure.
 */
static inline int
seen_add(SeenSet *set, uint64_t h, int32_t row, const unsigned char *s, size_t n,
         const int32_t *offsets, const char *docs)
{
    size_t at = (size_t)h & (set->cap - 1);
    while (set->slots[at].generation == set->generation) {
        if (set->slots[at].hash == h) {
            int32_t other = set->slots[at].row;
            size_t length = (size_t)(offsets[other + 1] - offsets[other]);
            if (length == n && memcmp(docs + offsets[other], s, n) == 0) {
                return 1;
            }
        }
        at = (at + 1) & (set->cap - 1);
    }
    set->slots[at].hash = h;
    set->slots[at].generation = set->generation;
    set->slots[at].row = row;
    set->count++;
    if (set->count * 2 > set->cap && seen_grow(set) < 0) {
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Parsing one range                                                         */

typedef struct {
    const unsigned char *start;
    size_t length;
    int non_ascii;
} Field;

typedef struct {
    /* input: the lines that start at file offsets [begin, end) */
    size_t begin, end;
    int layout;
    int want_rank;
    int integer_grades; /* qrels: grades must be -?digits (trec_eval's reading), else numbers */
    size_t max_line;    /* a longer line is declined ("line too long") */
    /* output */
    Vec doc_offsets;  /* int32, rows + 1 */
    Vec doc_data;
    Vec values;       /* float64 scores or int64 grades */
    Vec rank_offsets; /* int32, rows + 1 (want_rank) */
    Vec rank_data;
    Vec segment_rows;  /* int64: first row of each block of one query */
    Vec segment_codes; /* int32: its query code */
    Vec doc_codes;     /* int32 per row (qrels: documents are interned too) */
    Interner queries;
    Interner docs;
    SeenSet seen;
    size_t rows;
    /* the query id of the line before (lines of one query come together) */
    Vec last_query;
    int64_t last_code;
    double last_score;  /* runs: the score of the line before, in the same block */
    int rising;         /* runs: a score above the one before it in its block */
    /* lines skipped (blank, comment): (row, skipped so far) when the count changes, int64 pairs */
    Vec skips;
    size_t skipped;
    size_t runid_at, runid_length; /* runs: the run id field of the last row (file offset) */
    /* outcome */
    const char *declined; /* why the fast reader declined, or NULL */
    size_t declined_at;   /* file offset */
    int no_memory;
    int io_error; /* errno of a failed read */
} Task;

static void
task_free(Task *t)
{
    vec_free(&t->doc_offsets);
    vec_free(&t->doc_data);
    vec_free(&t->values);
    vec_free(&t->rank_offsets);
    vec_free(&t->rank_data);
    vec_free(&t->segment_rows);
    vec_free(&t->segment_codes);
    vec_free(&t->last_query);
    vec_free(&t->doc_codes);
    vec_free(&t->skips);
    interner_free(&t->queries);
    interner_free(&t->docs);
    free(t->seen.slots);
    t->seen.slots = NULL;
}

/* The line being parsed: buf[0] is at file offset base, buf[:n] ends with a line end or
   the file's end. */
typedef struct {
    const unsigned char *buf;
    size_t n, base;
    size_t start; /* the line's first byte */
    const unsigned char *limit; /* buf + n */
    int reserved; /* runs: the columns have room for every line of buf (reserve_chunk) */
} Line;

/* What a part of parse_lines found: a data line to go on with, a line skipped (blank or
   comment), or a stop (declined, or out of memory: recorded in the task). */
enum { LINE_DATA = 0, LINE_SKIPPED = 1, LINE_STOP = 2 };

/* Stop parsing: the input needs the general reader (the line's start says where). */
#define DECLINE(why)                                  \
    do {                                              \
        t->declined = (why);                          \
        t->declined_at = line->base + line->start;    \
        return LINE_STOP;                             \
    } while (0)

#define NO_MEMORY()       \
    do {                  \
        t->no_memory = 1; \
        return LINE_STOP; \
    } while (0)

/* A parse_lines step: inlined (it runs once per line of the file). */
#if defined(__GNUC__) || defined(__clang__)
#define LINE_STEP static inline __attribute__((always_inline)) int
#else
#define LINE_STEP static inline int
#endif

/* Append a string field to (offsets, data): 0, -1 on memory failure, -2 past 2 GiB. */
static inline int
append_string(Vec *offsets, Vec *data, const Field *f, const unsigned char *limit)
{
    size_t n = f->length;
    if (UNLIKELY(data->size + n > (size_t)INT32_MAX)) {
        return -2;
    }
    if (UNLIKELY(vec_reserve(data, n + 16) < 0)) {
        return -1;
    }
    char *to = data->data + data->size;
    if (LIKELY(n <= 16 && f->start + 16 <= limit)) {
        memcpy(to, f->start, 16); /* a fixed-size copy; the slack is overwritten later */
    }
    else {
        memcpy(to, f->start, n);
    }
    data->size += n;
    return vec_push_i32(offsets, (int32_t)data->size);
}

static inline int
same_token(const unsigned char *a, const unsigned char *b, size_t n, const unsigned char *limit)
{
#ifdef WORDS_LITTLE_ENDIAN
    if (n <= 8 && a + 8 <= limit) { /* b: a vector's memory, at least 256 bytes */
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        uint64_t mask = n == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * n)) - 1;
        return ((x ^ y) & mask) == 0;
    }
#endif
    if (n <= 8) {
        for (size_t i = 0; i < n; i++) {
            if (a[i] != b[i]) {
                return 0;
            }
        }
        return 1;
    }
    return memcmp(a, b, n) == 0;
}

/* Where a line ends that holds a CR: after CR LF, or at the buffer's end; 0 for a lone CR. */
static inline size_t
after_carriage_return(const unsigned char *buf, size_t p, size_t n)
{
    if (p + 1 < n && buf[p + 1] == '\n') {
        return p + 2;
    }
    return p + 1 == n ? n : 0;
}

/* Note a skipped line (blank or comment) before data row t->rows; 0, or -1 on memory failure. */
static inline int
note_skip(Task *t)
{
    t->skipped++;
    int64_t *last = t->skips.size ? (int64_t *)(t->skips.data + t->skips.size) - 2 : NULL;
    if (last != NULL && last[0] == (int64_t)t->rows) {
        last[1] = (int64_t)t->skipped;
        return 0;
    }
    int64_t pair[2] = {(int64_t)t->rows, (int64_t)t->skipped};
    return vec_append(&t->skips, pair, sizeof pair);
}

/* Allocate the outputs of a task; 0, or -1 on memory failure. */
static int
task_start(Task *t)
{
    size_t guess = (t->end - t->begin) / 24 + 16;
    const int run = t->layout == LAYOUT_RUN;
    t->last_code = -1;
    if (interner_init(&t->queries, 0) < 0 || vec_reserve(&t->values, guess * 8) < 0) {
        t->no_memory = 1;
        return -1;
    }
    if (run ? (seen_init(&t->seen) < 0 || vec_reserve(&t->doc_offsets, guess * 4 + 4) < 0 ||
               vec_reserve(&t->doc_data, guess * 8) < 0 || vec_push_i32(&t->doc_offsets, 0) < 0 ||
               (t->want_rank && vec_push_i32(&t->rank_offsets, 0) < 0))
            : (interner_init(&t->docs, 0) < 0 || vec_reserve(&t->doc_codes, guess * 4) < 0)) {
        t->no_memory = 1;
        return -1;
    }
    return 0;
}

/* A line whose first byte after blanks (at *p) is a control byte, a line end or '#': a
   blank or comment line skipped (*p: the next line), or a stop. */
LINE_STEP
skip_line(Task *t, const Line *line, size_t *p)
{
    const unsigned char *buf = line->buf;
    size_t n = line->n;
    unsigned char c = buf[*p];
    if (c == '#') {
        const unsigned char *lf = memchr(buf + *p, '\n', n - *p);
        size_t stop = lf == NULL ? n : (size_t)(lf - buf);
        if (stop - line->start > t->max_line) {
            DECLINE("line too long");
        }
        if (memchr(buf + *p, '\0', stop - *p) != NULL) {
            DECLINE("NUL byte");
        }
        *p = stop < n ? stop + 1 : n;
    }
    else if (c == '\n') {
        *p += 1;
    }
    else {
        size_t after;
        if (c != '\r' || (after = after_carriage_return(buf, *p, n)) == 0) {
            DECLINE(c == '\r' ? "carriage return inside a line" : "control byte");
        }
        *p = after;
    }
    if (UNLIKELY(note_skip(t) < 0)) {
        NO_MEMORY();
    }
    return LINE_SKIPPED;
}

/* Past the run id (the sixth field of a run's line): the rest of the line, ignored; *p is
   at the first byte after the blanks that follow the run id. */
LINE_STEP
skip_rest(Task *t, const Line *line, size_t *p)
{
    const unsigned char *buf = line->buf;
    size_t n = line->n;
    while (*p < n && buf[*p] != '\n') {
        if (buf[*p] < 0x20 && buf[*p] != '\t') {
            if (buf[*p] == '\r' && after_carriage_return(buf, *p, n) != 0) {
                *p += 1;
                continue;
            }
            DECLINE("control byte");
        }
        *p += 1;
    }
    if (*p < n) {
        *p += 1;
    }
    return LINE_DATA;
}

/* The fields of a data line (at *p), *count of them (the first MAX_FIELDS kept), *p
   moved to the next line; the line's length, field count and id encoding checked. */
LINE_STEP
split_fields(Task *t, const Line *line, size_t *p, Field *fields, int *count)
{
    const unsigned char *buf = line->buf;
    size_t n = line->n;
    const int run = t->layout == LAYOUT_RUN;
    const int wanted_fields = run ? 6 : 4;
    for (*count = 0;;) {
        size_t start = *p;
        int high = 0;
        *p = token_end(buf, *p, n, &high);
        if (*count < MAX_FIELDS) {
            fields[*count].start = buf + start;
            fields[*count].length = *p - start;
            fields[*count].non_ascii = high;
        }
        (*count)++;
        while (*p < n && (buf[*p] == ' ' || buf[*p] == '\t')) {
            (*p)++;
        }
        if (*p >= n) {
            break;
        }
        unsigned char c = buf[*p];
        if (c == '\n') {
            (*p)++;
            break;
        }
        if (c < 0x20) {
            if (c == '\r' && (*p = after_carriage_return(buf, *p, n)) != 0) {
                break;
            }
            DECLINE(c == '\r' ? "carriage return inside a line" : "control byte");
        }
        if (run && *count == wanted_fields) {
            /* text after the run id is ignored: skip to the end of the line */
            if (skip_rest(t, line, p) == LINE_STOP) {
                return LINE_STOP;
            }
            break;
        }
    }
    if (UNLIKELY(*p - line->start > t->max_line)) {
        DECLINE("line too long");
    }
    if (run ? *count < wanted_fields : *count != wanted_fields) {
        DECLINE("wrong number of fields");
    }
    const Field *query = &fields[0], *doc = &fields[2];
    if (UNLIKELY(query->non_ascii || doc->non_ascii) &&
        ((query->non_ascii && !valid_utf8(query->start, query->length)) ||
         (doc->non_ascii && !valid_utf8(doc->start, doc->length)))) {
        DECLINE("not UTF-8");
    }
    return LINE_DATA;
}

#ifdef HAS_SSE2
/* Bit i set for each of the 64 bytes at s whose byte i is <= 0x20 (*separators), or is
   below 0x20 or at least 0x80 (*unusual: a control byte, a tab or a line end, or a byte of
   a UTF-8 sequence). */
static inline void
line_masks(const unsigned char *s, uint64_t *separators, uint64_t *unusual)
{
    const __m128i space = _mm_set1_epi8(0x20);
    uint64_t sep = 0, odd = 0;
    for (int k = 0; k < 4; k++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + 16 * k));
        sep |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, space), x))
               << (16 * k);
        /* signed: bytes >= 0x80 are negative, so below 0x20 too */
        odd |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmplt_epi8(x, space)) << (16 * k);
    }
    *separators = sep;
    *unusual = odd;
}

/* The end of the next field of split_exact: the next separator (its position in `end`). */
#define NEXT_SEPARATOR(end)                    \
    do {                                       \
        if (UNLIKELY(left == 0)) {             \
            return 0;                          \
        }                                      \
        end = (unsigned)__builtin_ctzll(left); \
        left &= left - 1;                      \
    } while (0)

/*
 * The common line, split in one step: exactly `wanted` fields (4 or 6) one space or tab
 * apart, ASCII only, ending with LF within 64 bytes of the line's first field (at s, a
 * byte above 0x20). The separators of the 64 bytes are found at once (line_masks): the
 * first `wanted` of them must be single blanks and the last the LF. Returns the line's
 * length (its LF included) with the offset of each field's end (its separator) in `end`,
 * or 0 for any other line, which split_fields then reads (and declines where it must).
 */
static inline ALWAYS_INLINE unsigned
split_ends(const unsigned char *s, unsigned *end, const int wanted)
{
    uint64_t separators, unusual;
    line_masks(s, &separators, &unusual);
    uint64_t left = separators;
    NEXT_SEPARATOR(end[0]);
    NEXT_SEPARATOR(end[1]);
    NEXT_SEPARATOR(end[2]);
    NEXT_SEPARATOR(end[3]);
    if (wanted == 6) {
        NEXT_SEPARATOR(end[4]);
        NEXT_SEPARATOR(end[5]);
    }
    const unsigned last = end[wanted - 1];
    const uint64_t used = separators ^ left; /* the first `wanted` separators */
    /* the LF last; no separator right after another (an empty field) */
    if (s[last] != '\n' || (used & (used >> 1)) != 0) {
        return 0;
    }
    /* before the LF, the separators are spaces unless a byte below 0x20 or above 0x7F is
       there: then they must be tabs (a byte of UTF-8 or a control byte: the long way) */
    uint64_t odd = unusual & ((UINT64_C(1) << last) - 1);
    while (UNLIKELY(odd != 0)) {
        if (s[__builtin_ctzll(odd)] != '\t') {
            return 0;
        }
        odd &= odd - 1;
    }
    return last + 1;
}

/* split_ends, with the fields the callers read (the second, the iteration, is never read). */
static inline ALWAYS_INLINE unsigned
split_exact(const unsigned char *s, Field *fields, const int wanted)
{
    unsigned end[MAX_FIELDS];
    const unsigned length = split_ends(s, end, wanted);
    if (length == 0) {
        return 0;
    }
    fields[0].start = s;
    fields[0].length = end[0];
    for (int i = 2; i < wanted; i++) {
        fields[i].start = s + end[i - 1] + 1;
        fields[i].length = end[i] - end[i - 1] - 1;
        fields[i].non_ascii = 0;
    }
    return length;
}

#undef NEXT_SEPARATOR
#endif

/* split_exact for the task's layout (a constant field count in each branch): 1 with *p on
   the next line, or 0 (nothing changed). */
static inline int
split_common(const Task *t, const Line *line, size_t *p, Field *fields)
{
#ifdef HAS_SSE2
    if (UNLIKELY(*p + 64 > line->n)) {
        return 0;
    }
    const unsigned char *s = line->buf + *p;
    unsigned length =
        t->layout == LAYOUT_RUN ? split_exact(s, fields, 6) : split_exact(s, fields, 4);
    if (length == 0 || UNLIKELY(*p + length - line->start > t->max_line)) {
        return 0;
    }
    *p += length;
    return 1;
#else
    (void)t;
    (void)line;
    (void)p;
    (void)fields;
    return 0;
#endif
}

/* The line's query code: usually the same as the line before's; else a new block. */
LINE_STEP
line_query(Task *t, const Line *line, const Field *query)
{
    if (LIKELY(t->last_code >= 0 && query->length == t->last_query.size &&
               same_token(query->start, (const unsigned char *)t->last_query.data,
                          query->length, line->limit))) {
        return LINE_DATA;
    }
    int64_t code = intern_token(&t->queries, query->start, query->length, line->limit);
    if (code < 0) {
        NO_MEMORY();
    }
    int64_t row64 = (int64_t)t->rows;
    t->last_query.size = 0;
    if (vec_push_8(&t->segment_rows, &row64) < 0 ||
        vec_push_i32(&t->segment_codes, (int32_t)code) < 0 ||
        vec_append(&t->last_query, query->start, query->length) < 0) {
        NO_MEMORY();
    }
    if (t->layout == LAYOUT_RUN) {
        seen_clear(&t->seen);
        t->last_score = INFINITY;
    }
    t->last_code = code;
    return LINE_DATA;
}

/* A run's line (qid iter docno rank score runid): its document, score and rank kept,
   the document checked for a repeat within the block. */
LINE_STEP
run_line(Task *t, const Line *line, const Field *fields)
{
    const Field *doc = &fields[2];
    double score;
    const Field *f = &fields[4];
    int parsed = parse_double(f->start, f->length, line->limit, &score);
    if (UNLIKELY(parsed != 1)) {
        DECLINE(parsed ? "score not finite" : "score not in the decimal grammar");
    }
    if (LIKELY(line->reserved)) { /* room for every line of the chunk (parse_lines) */
        char *to = t->doc_data.data + t->doc_data.size;
        if (LIKELY(doc->length <= 16 && doc->start + 16 <= line->limit)) {
            memcpy(to, doc->start, 16); /* a fixed-size copy; the slack is overwritten later */
        }
        else {
            memcpy(to, doc->start, doc->length);
        }
        t->doc_data.size += doc->length;
        int32_t end = (int32_t)t->doc_data.size;
        memcpy(t->doc_offsets.data + t->doc_offsets.size, &end, 4);
        t->doc_offsets.size += 4;
        memcpy(t->values.data + t->values.size, &score, 8);
        t->values.size += 8;
    }
    else {
        int appended = append_string(&t->doc_offsets, &t->doc_data, doc, line->limit);
        if (UNLIKELY(appended == -2)) {
            DECLINE("document ids too long for one range");
        }
        if (UNLIKELY(appended < 0) || vec_push_8(&t->values, &score) < 0) {
            NO_MEMORY();
        }
    }
    t->rising |= score > t->last_score;
    t->last_score = score;
    if (t->want_rank) {
        const Field *r = &fields[3];
        if (r->non_ascii && !valid_utf8(r->start, r->length)) {
            DECLINE("not UTF-8");
        }
        int appended = append_string(&t->rank_offsets, &t->rank_data, r, line->limit);
        if (appended == -2) {
            DECLINE("ranks too long for one range");
        }
        if (appended < 0) {
            NO_MEMORY();
        }
    }
    int seen = seen_add(&t->seen, hash_token(doc->start, doc->length, line->limit),
                        (int32_t)t->rows, doc->start, doc->length,
                        (const int32_t *)t->doc_offsets.data, t->doc_data.data);
    if (UNLIKELY(seen < 0)) {
        NO_MEMORY();
    }
    if (UNLIKELY(seen)) {
        DECLINE("a document twice in one query");
    }
    return LINE_DATA;
}

/* A qrels line (qid iter docno grade): its grade kept, its document interned. */
LINE_STEP
qrels_line(Task *t, const Line *line, const Field *fields)
{
    double grade;
    const Field *f = &fields[3];
    if (t->integer_grades) {
        int64_t integer;
        if (!parse_int64(f->start, f->length, &integer)) {
            DECLINE("grade not a decimal integer");
        }
        grade = (double)integer; /* beyond 2^53: the nearest double, as numpy rounds */
    }
    else {
        int parsed = parse_double(f->start, f->length, line->limit, &grade);
        if (parsed != 1) {
            DECLINE(parsed ? "grade not finite" : "grade not in the decimal grammar");
        }
    }
    const Field *doc = &fields[2];
    int64_t doc_code = intern_token(&t->docs, doc->start, doc->length, line->limit);
    if (doc_code < 0 || vec_push_8(&t->values, &grade) < 0 ||
        vec_push_i32(&t->doc_codes, (int32_t)doc_code) < 0) {
        NO_MEMORY();
    }
    return LINE_DATA;
}

/* One data line (its first field at *p), *p moved to the next line. */
LINE_STEP
data_line(Task *t, Line *line, size_t *p)
{
    Field fields[MAX_FIELDS];
    int count;
    if ((!split_common(t, line, p, fields) &&
         split_fields(t, line, p, fields, &count) == LINE_STOP) ||
        line_query(t, line, &fields[0]) == LINE_STOP) {
        return LINE_STOP;
    }
    if (UNLIKELY(t->rows >= (size_t)INT32_MAX - 1)) {
        DECLINE("too many lines in one range");
    }
    if ((t->layout == LAYOUT_RUN ? run_line(t, line, fields) : qrels_line(t, line, fields)) ==
        LINE_STOP) {
        return LINE_STOP;
    }
    t->rows++;
    return LINE_DATA;
}

/*
 * Parse the lines of buf[p:n] that start before file offset t->end; buf[0] is
 * at file offset `base`, and buf[:n] ends with a line end or the file's end.
 * Returns where it stopped: n, or the start of the first line past the range.
 */
/* Runs: note where the run id (the sixth field) of the data line whose first field is at
   buf[first] lies (a line split_fields or split_exact accepted: six fields at least). */
static void
note_run_id(Task *t, const unsigned char *buf, size_t first, size_t n, size_t base)
{
    size_t p = first;
    int high = 0;
    for (int field = 0; field < 5; field++) {
        p = token_end(buf, p, n, &high);
        while (p < n && (buf[p] == ' ' || buf[p] == '\t')) {
            p++;
        }
    }
    t->runid_at = base + p;
    t->runid_length = token_end(buf, p, n, &high) - p;
}

/* The shortest run line, "q 0 d 1 1 r" and its line end: rows start at least this far apart. */
#define SHORTEST_RUN_LINE 12

/*
 * Runs: make room in the document, offset and score columns for every line of buf[p:n]
 * that starts before the range's end, so that run_line appends without a check per
 * line. Returns 1 when it did; 0 (the checked appends, which decline or fail as they
 * must) when the documents would pass 2 GiB or memory is short (ranks kept: run_line appends
 * them with a check).
 */
static int
reserve_chunk(Task *t, size_t p, size_t n, size_t base)
{
    if (t->layout != LAYOUT_RUN || base + p >= t->end) {
        return 0;
    }
    size_t starts = t->end - base < n ? t->end - base : n; /* rows start in buf[p:starts] */
    size_t rows = (starts - p) / SHORTEST_RUN_LINE + 1;
    /* every document id lies in buf[p:n], and within max_line of the last row's start */
    size_t bytes = (n - starts > t->max_line ? starts + t->max_line : n) - p;
    if (bytes > (size_t)INT32_MAX || t->doc_data.size + bytes > (size_t)INT32_MAX - 16) {
        return 0;
    }
    return vec_reserve(&t->values, rows * 8) == 0 &&
           vec_reserve(&t->doc_offsets, rows * 4) == 0 &&
           vec_reserve(&t->doc_data, bytes + 16) == 0;
}

#if defined(HAS_SSE2) && defined(WORDS_LITTLE_ENDIAN)
/*
 * Runs: the common lines of buf[p:n] (after reserve_chunk made room for them) in one tight
 * loop whose state lives in locals, written back to the task at the end: a line of six
 * single-blank-separated ASCII fields (split_ends) of the current query, whose score
 * parse_double reads as finite and whose document the block has no slot of its hash for.
 * Stops, before changing anything, at the first line that is not so (a new query, a blank
 * or comment, an odd line, a possible repeat, the seen set due to grow, the range's end):
 * data_line takes that one, exactly as it takes every line without this loop. Returns the
 * start of that line (or where the range's lines end); *last_data: the first field of the
 * last line taken.
 */
static size_t
common_run_lines(Task *t, const unsigned char *buf, size_t p, size_t n, size_t base,
                 size_t *last_data)
{
    if (t->last_code < 0 || n < 64) {
        return p;
    }
    const unsigned char *limit = buf + n;
    const size_t stop = t->end - base < n ? t->end - base : n; /* lines start before it */
    const size_t room = n - 64;                                /* split_ends reads 64 bytes */
    const unsigned char *query = (const unsigned char *)t->last_query.data;
    const unsigned query_length = (unsigned)t->last_query.size;
    const int short_query = query_length <= 8; /* the lines read here have 64 bytes */
    uint64_t query_word = 0, query_mask = 0;
    if (short_query) {
        memcpy(&query_word, query, 8); /* a vector's memory: at least 256 bytes */
        query_mask = query_length == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * query_length)) - 1;
    }
    const size_t max_line = t->max_line;
    char *docs = t->doc_data.data;
    size_t docs_size = t->doc_data.size;
    char *offsets = t->doc_offsets.data + t->doc_offsets.size;
    char *values = t->values.data + t->values.size;
    Seen *slots = t->seen.slots;
    const size_t mask = t->seen.cap - 1, most = t->seen.cap / 2;
    const uint32_t generation = t->seen.generation;
    size_t count = t->seen.count;
    size_t rows = t->rows, first = p;
    double last_score = t->last_score;
    int rising = t->rising;
    size_t last = *last_data;
    while (p < stop && p <= room && rows < (size_t)INT32_MAX - 1) {
        const unsigned char *s = buf + p;
        unsigned end[MAX_FIELDS];
        unsigned length;
        if (UNLIKELY(s[0] <= 0x20 || s[0] == '#') || (length = split_ends(s, end, 6)) == 0 ||
            UNLIKELY(length > max_line) || end[0] != query_length) {
            break;
        }
        if (short_query) { /* the query id as one word, its bytes beyond the id masked off */
            uint64_t w;
            memcpy(&w, s, 8);
            if (((w ^ query_word) & query_mask) != 0) {
                break;
            }
        }
        else if (!same_token(s, query, query_length, limit)) {
            break;
        }
        double score;
        if (parse_double(s + end[3] + 1, end[4] - end[3] - 1, limit, &score) != 1) {
            break;
        }
        const unsigned char *doc = s + end[1] + 1;
        const size_t doc_length = end[2] - end[1] - 1;
        const uint64_t h = hash_token(doc, doc_length, limit);
        size_t at = (size_t)h & mask;
        int same_hash = 0;
        while (slots[at].generation == generation) {
            if (UNLIKELY(slots[at].hash == h)) {
                same_hash = 1;
                break;
            }
            at = (at + 1) & mask;
        }
        if (UNLIKELY(same_hash || count + 1 > most)) {
            break; /* the same hash (a repeat, or a collision), or the set must grow */
        }
        if (LIKELY(doc_length <= 16 && doc + 16 <= limit)) {
            memcpy(docs + docs_size, doc, 16); /* a fixed-size copy; the slack is overwritten */
        }
        else {
            memcpy(docs + docs_size, doc, doc_length);
        }
        docs_size += doc_length;
        const int32_t doc_end = (int32_t)docs_size;
        memcpy(offsets, &doc_end, 4);
        offsets += 4;
        memcpy(values, &score, 8);
        values += 8;
        rising |= score > last_score;
        last_score = score;
        slots[at].hash = h;
        slots[at].generation = generation;
        slots[at].row = (int32_t)rows;
        count++;
        rows++;
        last = p;
        p += length;
    }
    if (p != first) {
        t->doc_data.size = docs_size;
        t->doc_offsets.size = (size_t)(offsets - t->doc_offsets.data);
        t->values.size = (size_t)(values - t->values.data);
        t->seen.count = count;
        t->rows = rows;
        t->last_score = last_score;
        t->rising = rising;
        *last_data = last;
    }
    return p;
}
#endif

static size_t
parse_lines(Task *t, const unsigned char *buf, size_t p, size_t n, size_t base)
{
    Line line = {.buf = buf, .n = n, .base = base, .limit = buf + n};
    line.reserved = reserve_chunk(t, p, n, base);
    size_t last_data = n; /* the first field of the last data line, when there is one */
    while (p < n && base + p < t->end) {
#if defined(HAS_SSE2) && defined(WORDS_LITTLE_ENDIAN)
        if (line.reserved && !t->want_rank) {
            p = common_run_lines(t, buf, p, n, base, &last_data);
            if (p >= n || base + p >= t->end) {
                break;
            }
        }
#endif
        line.start = p;
        int status;
        if (LIKELY(buf[p] > 0x20 && buf[p] != '#')) { /* the common line: no blanks first */
            last_data = p;
            status = data_line(t, &line, &p);
        }
        else {
            while (p < n && (buf[p] == ' ' || buf[p] == '\t')) {
                p++;
            }
            if (p >= n) {
                break;
            }
            if (buf[p] <= 0x20 || buf[p] == '#') {
                status = skip_line(t, &line, &p);
            }
            else {
                last_data = p;
                status = data_line(t, &line, &p);
            }
        }
        if (status == LINE_STOP) {
            return n;
        }
    }
    if (t->layout == LAYOUT_RUN && last_data < n) {
        note_run_id(t, buf, last_data, n, base);
    }
    return p;
}

#undef DECLINE
#undef NO_MEMORY

static int
starts_with_byte_order_mark(const unsigned char *buf, size_t n)
{
    return n >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF;
}

/* Parse the range of a buffer that holds the whole input. */
static void
parse_memory(Task *t, const unsigned char *buf, size_t n)
{
    size_t p = t->begin;
    if (task_start(t) < 0) {
        return;
    }
    if (p == 0 && starts_with_byte_order_mark(buf, n)) {
        t->declined = "byte order mark";
        return;
    }
    if (p > 0 && buf[p - 1] != '\n') { /* the line that starts before the range is not ours */
        const unsigned char *lf = memchr(buf + p, '\n', n - p);
        p = lf == NULL ? n : (size_t)(lf - buf) + 1;
    }
    parse_lines(t, buf, p, n, 0);
}

#if defined(__unix__) || defined(__APPLE__)
#define HAS_FILE_MODE 1
#define READ_BLOCK ((size_t)1 << 20)

/* pread until `want` bytes or the end of the file; the count, or -1 (errno set). */
static ssize_t
read_at(int fd, unsigned char *to, size_t want, size_t offset)
{
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(fd, to + got, want - got, (off_t)(offset + got));
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        if (r == 0) {
            break;
        }
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/*
 * Parse the range of a file, reading it block by block into one small buffer
 * (the file's pages are copied from the page cache, never mapped: no page
 * faults and no resident copy of the file).
 */
static void
parse_file(Task *t, int fd)
{
    if (task_start(t) < 0) {
        return;
    }
    size_t cap = 2 * READ_BLOCK;
    unsigned char *buf = malloc(cap);
    if (buf == NULL) {
        t->no_memory = 1;
        return;
    }
    size_t base = t->begin > 0 ? t->begin - 1 : 0; /* file offset of buf[0] */
    size_t have = 0, p = 0;
    size_t searched = 0; /* buf[p:searched] holds no line end: each byte is looked at once */
    int at_eof = 0, find_line_start = t->begin > 0;
    for (;;) {
        if (!at_eof) {
            /* bounded: at most one line (max_line) and two blocks are held */
            if (have + READ_BLOCK > cap) {
                size_t bigger = cap * 2;
                unsigned char *grown = realloc(buf, bigger);
                if (grown == NULL) {
                    t->no_memory = 1;
                    break;
                }
                buf = grown;
                cap = bigger;
            }
            ssize_t got = read_at(fd, buf + have, READ_BLOCK, base + have);
            if (got < 0) {
                t->io_error = errno ? errno : EIO;
                break;
            }
            at_eof = (size_t)got < READ_BLOCK;
            have += (size_t)got;
        }
        if (find_line_start) { /* the line that starts before the range is not ours */
            const unsigned char *lf = memchr(buf + p, '\n', have - p);
            if (lf == NULL) {
                if (at_eof || base + have >= t->end) {
                    break; /* no line starts in the range */
                }
                base += have; /* nothing here is ours: drop it */
                have = p = 0;
                continue;
            }
            p = (size_t)(lf - buf) + 1;
            searched = p;
            find_line_start = 0;
        }
        if (base + p == 0 && starts_with_byte_order_mark(buf, have)) {
            t->declined = "byte order mark";
            break;
        }
        size_t chunk_end = have;
        if (!at_eof) { /* complete lines only: the last line end among the new bytes */
            size_t k = have;
            while (k > searched && buf[k - 1] != '\n') {
                k--;
            }
            if (k == searched) { /* no line end yet: read more, unless the line is too long */
                searched = have;
                if (have - p > t->max_line) {
                    t->declined = "line too long";
                    t->declined_at = base + p;
                    break;
                }
                continue;
            }
            chunk_end = k;
        }
        size_t stop = parse_lines(t, buf, p, chunk_end, base);
        if (t->declined != NULL || t->no_memory || stop < chunk_end ||
            base + chunk_end >= t->end || at_eof) {
            break;
        }
        memmove(buf, buf + chunk_end, have - chunk_end);
        base += chunk_end;
        have -= chunk_end;
        p = 0;
        searched = have;
    }
    free(buf);
}
#endif

/* ------------------------------------------------------------------------ */
/* Python entry point                                                        */

PyDoc_STRVAR(parse_doc,
"parse(source, begin, end, layout, want_rank, integer_grades=False, max_line=MAX_LINE, /)\n"
"--\n\n"
"Parse the TREC lines that start at offsets [begin, end) of source.\n\n"
"source is a file descriptor (read with pread) or a buffer holding the whole\n"
"input. layout is RUN (qid iter docno rank score runid ...) or QRELS (qid iter\n"
"docno grade); qrels grades are decimal numbers, or with integer_grades only\n"
"-?digits. A line longer than max_line bytes is declined. Returns a tuple (rows,\n"
"names, segment_rows, segment_codes, values, doc_offsets, doc_data, rank_offsets,\n"
"rank_data, doc_codes, doc_names, descending, skips, lines, runid_at,\n"
"runid_length), arrays as buffers and None where a layout has no such column\n"
"(descending: runs whose scores never rise within a block of one query; skips:\n"
"int64 pairs (row, blank or comment lines so far) where that count changes;\n"
"lines: the lines that start in the range; runid_at, runid_length: where the run\n"
"id of the last row is), or a tuple (reason, offset) saying why the input needs\n"
"the general reader and where the line it stopped at starts.");

static PyObject *
ctrec_parse(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *source;
    Py_ssize_t begin, end, max_line = DEFAULT_MAX_LINE;
    int layout, want_rank, integer_grades = 0;
    if (!PyArg_ParseTuple(args, "Onnip|pn:parse", &source, &begin, &end, &layout, &want_rank,
                          &integer_grades, &max_line)) {
        return NULL;
    }
    if (begin < 0 || end < begin || max_line < 1 ||
        (layout != LAYOUT_RUN && layout != LAYOUT_QRELS)) {
        PyErr_SetString(PyExc_ValueError, "parse: bad range, layout or line limit");
        return NULL;
    }
    Task task;
    memset(&task, 0, sizeof task);
    task.begin = (size_t)begin;
    task.end = (size_t)end;
    task.layout = layout;
    task.want_rank = want_rank && layout == LAYOUT_RUN;
    task.integer_grades = integer_grades;
    task.max_line = (size_t)max_line;

    if (PyLong_Check(source)) {
#ifdef HAS_FILE_MODE
        int fd = PyObject_AsFileDescriptor(source);
        if (fd < 0) {
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        parse_file(&task, fd);
        Py_END_ALLOW_THREADS
#else
        PyErr_SetString(PyExc_ValueError, "parse: reading from a file descriptor is not supported");
        return NULL;
#endif
    }
    else {
        Py_buffer view;
        if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) < 0) {
            return NULL;
        }
        if (end > view.len) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "parse: range past the end of the buffer");
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        parse_memory(&task, (const unsigned char *)view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
        PyBuffer_Release(&view);
    }
    if (task.io_error) {
        task_free(&task);
        errno = task.io_error;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (task.no_memory) {
        task_free(&task);
        return PyErr_NoMemory();
    }
    if (task.declined != NULL) {
        PyObject *why = Py_BuildValue("(sn)", task.declined, (Py_ssize_t)task.declined_at);
        task_free(&task);
        return why;
    }
    /* rows, names, segment_rows, segment_codes, values, then for runs doc_offsets, doc_data,
       rank_offsets, rank_data and for qrels doc_codes, doc_names (None elsewhere), then
       whether scores descend within each block, the skipped lines, the lines read, and
       the file offset and length of the last row's run id */
    enum { N_ITEMS = 16 };
    const int run = layout == LAYOUT_RUN;
    PyObject *items[N_ITEMS] = {NULL};
    items[0] = PyLong_FromSize_t(task.rows);
    items[1] = interner_take_names(&task.queries);
    items[2] = vec_to_block(&task.segment_rows);
    items[3] = vec_to_block(&task.segment_codes);
    items[4] = vec_to_block(&task.values);
    items[5] = run ? vec_to_block(&task.doc_offsets) : Py_NewRef(Py_None);
    items[6] = run ? vec_to_block(&task.doc_data) : Py_NewRef(Py_None);
    items[7] = task.want_rank ? vec_to_block(&task.rank_offsets) : Py_NewRef(Py_None);
    items[8] = task.want_rank ? vec_to_block(&task.rank_data) : Py_NewRef(Py_None);
    items[9] = run ? Py_NewRef(Py_None) : vec_to_block(&task.doc_codes);
    items[10] = run ? Py_NewRef(Py_None) : interner_take_names(&task.docs);
    items[11] = PyBool_FromLong(run && !task.rising);
    items[12] = vec_to_block(&task.skips);
    items[13] = PyLong_FromSize_t(task.rows + task.skipped);
    items[14] = PyLong_FromSize_t(task.runid_at);
    items[15] = PyLong_FromSize_t(task.runid_length);
    task_free(&task);
    PyObject *result = PyTuple_New(N_ITEMS);
    for (int i = 0; i < N_ITEMS; i++) {
        if (items[i] == NULL || result == NULL) {
            for (int j = 0; j < N_ITEMS; j++) {
                Py_XDECREF(items[j]);
            }
            Py_XDECREF(result);
            return NULL;
        }
    }
    for (int i = 0; i < N_ITEMS; i++) {
        PyTuple_SET_ITEM(result, i, items[i]);
    }
    return result;
}

static PyMethodDef ctrec_methods[] = {
    {"parse", ctrec_parse, METH_VARARGS, parse_doc},
    {"extend", block_extend, METH_VARARGS,
     "extend(block, data, /)\n--\n\nThe bytes of data appended to block (None: a new Block),\n"
     "grown in place; returns the block. The GIL is released while the bytes are copied:\n"
     "one thread at a time, and no buffer of the block held (BufferError)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ctrec_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "rankwise.io._ctrec",
    .m_doc = "Fast, exact parsing of clean TREC run and qrels text (see rankwise.io._fast).",
    .m_size = -1,
    .m_methods = ctrec_methods,
};

PyMODINIT_FUNC
PyInit__ctrec(void)
{
    init_byte_class();
    if (PyType_Ready(&BlockType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&ctrec_module);
    if (module == NULL) {
        return NULL;
    }
#ifdef HAS_FILE_MODE
    const int file_mode = 1;
#else
    const int file_mode = 0;
#endif
    if (PyModule_AddIntConstant(module, "RUN", LAYOUT_RUN) < 0 ||
        PyModule_AddIntConstant(module, "QRELS", LAYOUT_QRELS) < 0 ||
        PyModule_AddIntConstant(module, "FILE_MODE", file_mode) < 0 ||
        PyModule_AddIntConstant(module, "MAX_LINE", (long)DEFAULT_MAX_LINE) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
