/*
 * shm.h - the shared-memory segment piclrun creates and the local backend
 * (local.c) maps: one file (in /dev/shm when it exists) holding a header,
 * one slot per process (nodes 0..nprocs-1, then the host when there is one)
 * and one single-producer single-consumer ring per ordered pair of slots.
 * Not installed; shared by piclrun.c and local.c only. piclrun reserves
 * the file's space (posix_fallocate): all of it for a small run, else up
 * to the rings' data, whose pages come as they are first touched (a
 * SIGBUS when the file system is full: local.c says so).
 *
 * Layout: [head: 64 bytes][slots: nslots * 64 bytes] padded to 4096, then
 * one ring per ordered pair of slots (nslots * nslots: the diagonal is never
 * used), as two tables in the same order, each padded to 4096: the rings'
 * indices, PICL_RING_CTL bytes each (head and tail on their own cache
 * lines), then their data, ring_size bytes each (a power of two). The rings
 * into one slot are next to each other: a receiver looking whether anything
 * came reads nslots contiguous indices, not one page per peer (at -n 1024,
 * a page per ring faulted in was 4 GiB zeroed and most of a run's time).
 * head and tail count bytes ever written / consumed; the producer stores
 * head with release order after copying, the consumer stores tail after
 * reading.
 *
 * A message is one or more frames: a struct picl_frame then the chunk's
 * bytes, padded to 16. Frames of one message follow each other in the ring
 * (a sender sends one message at a time). A frame whose chunk is
 * PICL_FRAME_WRAP means "continue at the start of the ring".
 *
 * A large message may instead be one frame whose chunk is PICL_FRAME_CMA,
 * followed by a struct picl_cma_desc: the receiver copies the message
 * straight from the sender's buffer (process_vm_readv), then stores the
 * descriptor's seq in the ring's cma_ack (after setting cma_fail if it could
 * not read it: the sender then sends the message through the ring, and
 * never again uses CMA on that ring). The sender waits for cma_ack.
 */
#ifndef PICL_RT_SHM_H
#define PICL_RT_SHM_H

#include <stdatomic.h>
#include <stdint.h>

#define PICL_SHM_MAGIC  0x32524c4349504cULL   /* "LPICLR2" */
#define PICL_RING_CTL   128
#define PICL_FRAME_WRAP 0xffffffffu
#define PICL_FRAME_CMA  0xfffffffeu

/* Process states in a slot. */
enum {
	PICL_ST_NEW = 0,        /* not started yet */
	PICL_ST_RUNNING = 1,    /* open0 done */
	PICL_ST_CLOSED = 2,     /* close0 done */
	PICL_ST_EXITED = 3,     /* exited without close0 (piclrun marks it) */
	PICL_ST_DIED = 4        /* killed, crashed or aborted */
};

/* What a process is blocked on (for piclrun --timeout's report). */
enum { PICL_BL_NONE = 0, PICL_BL_RECV = 1, PICL_BL_SEND = 2 };

struct picl_shm_head {
	uint64_t magic;
	uint32_t nslots, nprocs;        /* nslots = nprocs (+1 with a host) */
	int32_t host;                   /* PICL_HOST or -1 */
	_Atomic int32_t stop;           /* piclrun: the run is being stopped */
	uint64_t ring_size;
	uint64_t rings_off;             /* offset of the rings' indices */
	uint64_t total;                 /* bytes in the segment */
	uint64_t data_off;              /* offset of the rings' data */
	char pad[8];
};

struct picl_shm_slot {
	_Atomic int32_t state;
	_Atomic int32_t pid;
	_Atomic uint32_t futex;         /* bumped to wake a sleeping receiver */
	_Atomic int32_t sleeping;       /* 1: wake it; 2: bump futex only */
	_Atomic int32_t blocked;        /* PICL_BL_* */
	_Atomic int32_t blocked_on;     /* the peer it waits for room to, or -1 */
	_Atomic int32_t after_peer;     /* it failed because another had */
	_Atomic int32_t trace_lost;     /* its trace could not all be written */
	_Atomic int32_t stop_sig;       /* a stop signal it caught (0: none) */
	char pad[28];
};

struct picl_ring_ctl {
	_Alignas(64) _Atomic uint64_t head;
	char pad1[56];
	_Alignas(64) _Atomic uint64_t tail;
	_Atomic uint64_t cma_ack;       /* consumer: last CMA message read */
	_Atomic uint32_t cma_fail;      /* consumer: CMA does not work */
	char pad2[44];
};

struct picl_cma_desc {                  /* after a PICL_FRAME_CMA frame */
	uint64_t addr;                  /* the message in the sender */
	uint64_t seq;                   /* 1, 2, ... per ring */
};

struct picl_frame {
	uint32_t chunk;                 /* bytes in this frame, or WRAP */
	int32_t type;
	uint64_t total;                 /* bytes in the whole message */
};

static inline uint64_t picl_shm_rings_off(uint32_t nslots)
{
	uint64_t o = sizeof(struct picl_shm_head) +
		     (uint64_t)nslots * sizeof(struct picl_shm_slot);
	return (o + 4095) & ~(uint64_t)4095;
}

static inline uint64_t picl_shm_data_off(uint32_t nslots)
{
	uint64_t o = picl_shm_rings_off(nslots) +
		     (uint64_t)nslots * nslots * PICL_RING_CTL;
	return (o + 4095) & ~(uint64_t)4095;
}

static inline uint64_t picl_shm_size(uint32_t nslots, uint64_t ring_size)
{
	return picl_shm_data_off(nslots) +
	       (uint64_t)nslots * nslots * ring_size;
}

static inline struct picl_shm_slot *picl_shm_slot(void *base, uint32_t i)
{
	return (struct picl_shm_slot *)((char *)base +
					sizeof(struct picl_shm_head)) + i;
}

/* The indices of the ring from slot src to slot dst. */
static inline struct picl_ring_ctl *picl_shm_ring(void *base, uint32_t src,
						  uint32_t dst)
{
	struct picl_shm_head *h = base;
	return (struct picl_ring_ctl *)((char *)base + h->rings_off +
		((uint64_t)dst * h->nslots + src) * PICL_RING_CTL);
}

#endif /* PICL_RT_SHM_H */
