/* rsort.h - ascending sort of 64-bit integers by radix (LSD, 8-bit digits).
 *
 * For arrays sorted by their whole value, where qsort()'s comparison calls
 * showed in the indexing profile (DUPNIQ's word table, posting lists): the
 * order is the one any correct sort gives, so results do not depend on
 * which is used.
 */
#ifndef RSORT_H
#define RSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n) ascending.  Never fails: takes a scratch copy of n values
 * when it can (malloc), else sorts in place with qsort(); same result. */
void rsort_u64(uint64_t *v, size_t n);

/* The qsort()/bsearch() comparison of two uint64_t. */
int rsort_cmp_u64(const void *a, const void *b);

#endif
