/*
 * Helpers shared by rankwise's C modules: portability macros and a fast hash
 * for short byte strings (ids: query ids, document ids).
 */
#ifndef RANKWISE_STRINGS_H
#define RANKWISE_STRINGS_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LOWEST_SET_BYTE(x) ((unsigned)__builtin_ctzll(x) >> 3)
/* a helper of a shared header that a module including it may not call */
#define MAYBE_UNUSED __attribute__((unused))
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define MAYBE_UNUSED
static unsigned
lowest_set_byte(uint64_t x)
{
    unsigned k = 0;
    while (!(x & 0xFF)) {
        x >>= 8;
        k++;
    }
    return k;
}
#define LOWEST_SET_BYTE(x) lowest_set_byte(x)
#endif

/* Eight bytes at a time where words are little-endian (every platform Python wheels target). */
#if (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_M_X64) || \
    defined(_M_ARM64) || defined(_M_IX86)
#define WORDS_LITTLE_ENDIAN 1
#endif

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

static inline uint64_t
hash_bytes(const unsigned char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)n * 0xFF51AFD7ED558CCDULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, s, n);
        h = (h ^ w) * 0x94D049BB133111EBULL;
        h ^= h >> 29;
    }
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return h;
}

/* The bytes of a token of at most 8 bytes as a zero-padded word (limit: end of the buffer). */
static inline uint64_t
short_word(const unsigned char *s, size_t n, const unsigned char *limit)
{
    uint64_t w = 0;
#ifdef WORDS_LITTLE_ENDIAN
    if (LIKELY(s + 8 <= limit)) {
        memcpy(&w, s, 8);
        return n == 8 ? w : w & (((uint64_t)1 << (8 * n)) - 1);
    }
#else
    (void)limit;
#endif
    memcpy(&w, s, n);
    return w;
}

static inline uint64_t
hash_token(const unsigned char *s, size_t n, const unsigned char *limit)
{
    if (LIKELY(n <= 8)) {
        uint64_t h = (short_word(s, n, limit) ^ ((uint64_t)n << 59)) * 0x9E3779B97F4A7C15ULL;
        return h ^ (h >> 29);
    }
    return hash_bytes(s, n);
}

#endif /* RANKWISE_STRINGS_H */
