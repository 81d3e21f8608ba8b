/* keyslot.h - the Redis Cluster hash slot of a key.
 *
 * A cluster splits the key space into 16384 slots: CRC16 (the XMODEM
 * variant: polynomial 0x1021, initial value 0, no reflection) of the key
 * modulo 16384.  When the key holds a '{' followed later by a '}' with at
 * least one byte between them, only the bytes between the first '{' and
 * the first '}' after it are hashed (the "hash tag"), so keys that share a
 * tag share a slot and can be changed together in one MULTI/EXEC or
 * script.  Pure: no I/O.
 */
#ifndef KEYSLOT_H
#define KEYSLOT_H

#include <stddef.h>
#include <stdint.h>

#define KEYSLOT_COUNT 16384

/* CRC16/XMODEM of len bytes (binary-safe; len 0 gives 0). */
uint16_t keyslot_crc16(const void *buf, size_t len);

/* The slot (0..16383) of a key of len bytes, hash tags honoured. */
unsigned keyslot_of(const void *key, size_t len);

#endif
