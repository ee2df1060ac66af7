// SPDX-License-Identifier: BSD-2-Clause-Patent
/* The Sysprof capture format, version 1.
 *
 * Every struct below is a wire format shared with GNOME Sysprof, declared as
 * upstream's headers declare it: laid out naturally (no padding anywhere)
 * and typedef'd with an alignment of 1, so that a frame may sit at any
 * offset of a buffer; bitfields laid out by the GCC convention of the
 * writing host (first field in the least significant bits on little-endian
 * hosts).  The static asserts at the
 * end pin every size and the offsets other tools depend on; change none of them.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>

#include "sysprof-macros.h"

SYSPROF_BEGIN_DECLS

#define SYSPROF_CAPTURE_MAGIC          0xFDCA975Eu
#define SYSPROF_CAPTURE_FORMAT_VERSION 1
#define SYSPROF_CAPTURE_ALIGN          (sizeof (SysprofCaptureAddress))
#define SYSPROF_CAPTURE_MAX_FRAME_LEN  65528
#define SYSPROF_CAPTURE_ADDRESS_FORMAT "0x%016" PRIx64
#define SYSPROF_CAPTURE_JITMAP_MARK    UINT64_C (0xE000000000000000)
#define SYSPROF_CAPTURE_COUNTER_INT64  0
#define SYSPROF_CAPTURE_COUNTER_DOUBLE 1
/* Sysprof 45+ marks its reverse frame-index TIMESTAMP frames with this value in padding2. */
#define SYSPROF_CAPTURE_FRAME_INDEX_MAGIC 0x53504958u
/* Counter ids are 24-bit on the wire. */
#define SYSPROF_CAPTURE_COUNTER_ID_MAX 0xFFFFFFu
/* A single TIMESTAMP..DBUS_MESSAGE frame may carry at most this many addresses. */
#define SYSPROF_CAPTURE_MAX_ADDRS ((SYSPROF_CAPTURE_MAX_FRAME_LEN - 48) / 8)

typedef uint64_t SysprofCaptureAddress;

typedef struct _SysprofCaptureReader    SysprofCaptureReader;
typedef struct _SysprofCaptureWriter    SysprofCaptureWriter;
typedef struct _SysprofCaptureCursor    SysprofCaptureCursor;
typedef struct _SysprofCaptureCondition SysprofCaptureCondition;

typedef enum
{
  SYSPROF_CAPTURE_FRAME_TIMESTAMP = 1,
  SYSPROF_CAPTURE_FRAME_SAMPLE = 2,
  SYSPROF_CAPTURE_FRAME_MAP = 3,
  SYSPROF_CAPTURE_FRAME_PROCESS = 4,
  SYSPROF_CAPTURE_FRAME_FORK = 5,
  SYSPROF_CAPTURE_FRAME_EXIT = 6,
  SYSPROF_CAPTURE_FRAME_JITMAP = 7,
  SYSPROF_CAPTURE_FRAME_CTRDEF = 8,
  SYSPROF_CAPTURE_FRAME_CTRSET = 9,
  SYSPROF_CAPTURE_FRAME_MARK = 10,
  SYSPROF_CAPTURE_FRAME_METADATA = 11,
  SYSPROF_CAPTURE_FRAME_LOG = 12,
  SYSPROF_CAPTURE_FRAME_FILE_CHUNK = 13,
  SYSPROF_CAPTURE_FRAME_ALLOCATION = 14,
  SYSPROF_CAPTURE_FRAME_OVERLAY = 15,
  SYSPROF_CAPTURE_FRAME_TRACE = 16,
  SYSPROF_CAPTURE_FRAME_DBUS_MESSAGE = 17,
} SysprofCaptureFrameType;

/* One past the last known type (not part of the file format). */
#define SYSPROF_CAPTURE_FRAME_LAST 18

/* Context markers inside address arrays: the Linux perf PERF_CONTEXT_* values. */
typedef enum
{
  SYSPROF_ADDRESS_CONTEXT_NONE = 0,
  SYSPROF_ADDRESS_CONTEXT_HYPERVISOR,
  SYSPROF_ADDRESS_CONTEXT_KERNEL,
  SYSPROF_ADDRESS_CONTEXT_USER,
  SYSPROF_ADDRESS_CONTEXT_GUEST,
  SYSPROF_ADDRESS_CONTEXT_GUEST_KERNEL,
  SYSPROF_ADDRESS_CONTEXT_GUEST_USER,
} SysprofAddressContext;

#define SYSPROF_CAPTURE_ADDRESS_HV           ((SysprofCaptureAddress) -32)
#define SYSPROF_CAPTURE_ADDRESS_KERNEL       ((SysprofCaptureAddress) -128)
#define SYSPROF_CAPTURE_ADDRESS_USER         ((SysprofCaptureAddress) -512)
#define SYSPROF_CAPTURE_ADDRESS_GUEST        ((SysprofCaptureAddress) -2048)
#define SYSPROF_CAPTURE_ADDRESS_GUEST_KERNEL ((SysprofCaptureAddress) -2176)
#define SYSPROF_CAPTURE_ADDRESS_GUEST_USER   ((SysprofCaptureAddress) -2560)

/* The bus of a DBUS_MESSAGE frame (macros, as upstream has them). */
#define SYSPROF_CAPTURE_DBUS_TYPE_SYSTEM  0
#define SYSPROF_CAPTURE_DBUS_TYPE_SESSION 1
#define SYSPROF_CAPTURE_DBUS_TYPE_A11Y    2
#define SYSPROF_CAPTURE_DBUS_TYPE_OTHER   3

#define SYSPROF_CAPTURE_DBUS_FLAGS_MESSAGE_TOO_LARGE (1 << 0)

typedef union
{
  int64_t v64;
  double  vdbl;
} SysprofCaptureCounterValue;

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  uint32_t magic;
  uint32_t version : 8;
  uint32_t little_endian : 1;
  uint32_t padding : 23;
  char     capture_time[64];
  int64_t  time;
  int64_t  end_time;
  union
  {
    struct
    {
      /* File offset of the newest reverse-index frame (Sysprof 45+), 0 = none. */
      uint64_t last_frame_index;
    } frame_index;
    char suffix[168];
  };
} SysprofCaptureFileHeader SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  uint16_t len;
  int16_t  cpu;
  int32_t  pid;
  int64_t  time;
  uint32_t type : 8;
  uint32_t padding1 : 24;
  uint32_t padding2;
  /* Zero-length rather than flexible: every frame type embeds this struct
   * first, which C++ only accepts for a zero-length array. */
  uint8_t data[0];
} SysprofCaptureFrame SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
} SysprofCaptureTimestamp SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
} SysprofCaptureExit SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  int32_t             child_pid;
} SysprofCaptureFork SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  char                cmdline[0];
} SysprofCaptureProcess SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  uint64_t            start;
  uint64_t            end;
  uint64_t            offset;
  uint64_t            inode;
  char                filename[0];
} SysprofCaptureMap SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  uint32_t            n_jitmaps;
  /* n_jitmaps packed entries: an unaligned u64 address, then a NUL-terminated name. */
  uint8_t data[0];
} SysprofCaptureJitmap SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame   frame;
  uint32_t              n_addrs : 16;
  uint32_t              padding1 : 16;
  int32_t               tid;
  SysprofCaptureAddress addrs[0];
} SysprofCaptureSample SYSPROF_ALIGNED_END (1);

/* Our extension (README.md, "Off-CPU samples"): a SAMPLE frame whose padding1
 * is SYSPROF_CAPTURE_SAMPLE_OFF_CPU holds the stack of a thread as it left
 * the CPU (time: that moment), and its frame.padding2 how long the thread
 * stayed off it, in microseconds.  Its two outermost addresses are
 * SYSPROF_CAPTURE_ADDRESS_USER and the JIT-map address named
 * SYSPROF_CAPTURE_OFF_CPU_NAME, so that readers that know nothing of it
 * (Sysprof) show such stacks under that name, apart from the stacks sampled
 * on the CPU. */
#define SYSPROF_CAPTURE_SAMPLE_OFF_CPU 0x4f43
#define SYSPROF_CAPTURE_OFF_CPU_NAME   "[off-CPU]"

/* Microseconds off CPU of an off-CPU sample (at least 1), 0 for any other
 * sample. */
static inline uint32_t
sysprof_capture_sample_get_off_cpu_usec (const SysprofCaptureSample *sample)
{
  if (sample->padding1 != SYSPROF_CAPTURE_SAMPLE_OFF_CPU || sample->frame.padding2 == 0)
    return 0;
  return sample->frame.padding2;
}

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame   frame;
  uint32_t              n_addrs : 16;
  uint32_t              entering : 1;
  uint32_t              padding1 : 15;
  int32_t               tid;
  SysprofCaptureAddress addrs[0];
} SysprofCaptureTrace SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  char                       category[32];
  char                       name[32];
  char                       description[52];
  uint32_t                   id : 24;
  uint32_t                   type : 8;
  SysprofCaptureCounterValue value;
} SysprofCaptureCounter SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame   frame;
  uint32_t              n_counters : 16;
  uint32_t              padding1 : 16;
  uint32_t              padding2;
  SysprofCaptureCounter counters[0];
} SysprofCaptureCounterDefine SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  /* Up to 8 values per group; an unused slot has id 0. */
  uint32_t                   ids[8];
  SysprofCaptureCounterValue values[8];
} SysprofCaptureCounterValues SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame         frame;
  uint32_t                    n_values : 16;
  uint32_t                    padding1 : 16;
  uint32_t                    padding2;
  SysprofCaptureCounterValues values[0];
} SysprofCaptureCounterSet SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  int64_t             duration;
  char                group[24];
  char                name[40];
  char                message[0];
} SysprofCaptureMark SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  char                id[40];
  char                metadata[0];
} SysprofCaptureMetadata SYSPROF_ALIGNED_END (1);

/* Events that were lost before they could reach the capture are reported in
 * METADATA frames with this id (a convention of ours; Sysprof shows them as
 * plain metadata).  The text starts with the decimal number of events lost,
 * optionally followed by a space and a description ("12 collector: ring
 * full").  A reader sums the numbers of all such frames of a process (the
 * frame's pid; -1 for losses that belong to no single process). */
#define SYSPROF_LOST_EVENTS_METADATA_ID "sysprof.lost-events"

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  uint32_t            severity : 16;
  uint32_t            padding1 : 16;
  uint32_t            padding2;
  char                domain[32];
  char                message[0];
} SysprofCaptureLog SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  uint32_t            is_last : 1;
  uint32_t            padding1 : 15;
  uint32_t            len : 16;
  char                path[256];
  uint8_t             data[0];
} SysprofCaptureFileChunk SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame   frame;
  SysprofCaptureAddress alloc_addr;
  int64_t               alloc_size;
  int32_t               tid;
  uint32_t              n_addrs : 16;
  uint32_t              padding1 : 16;
  SysprofCaptureAddress addrs[0];
} SysprofCaptureAllocation SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  uint32_t            layer : 8;
  uint32_t            padding : 24;
  uint32_t            src_len : 16;
  uint32_t            dst_len : 16;
  /* "src\0dst\0": src is the host path, dst the mount point inside the process. */
  char data[0];
} SysprofCaptureOverlay SYSPROF_ALIGNED_END (1);

SYSPROF_ALIGNED_BEGIN (1)
typedef struct
{
  SysprofCaptureFrame frame;
  uint16_t            bus_type : 2;
  uint16_t            flags : 14;
  uint16_t            message_len;
  /* The raw D-Bus wire message (absent when MESSAGE_TOO_LARGE is set). */
  uint8_t message[0];
} SysprofCaptureDBusMessage SYSPROF_ALIGNED_END (1);

/* Frames counted by a writer, by type.  Upstream's array ends before TRACE
 * and DBUS_MESSAGE (it counts neither); ours counts them in padding[0] and
 * padding[1], which sysprof_capture_stat_get() reads. */
typedef struct
{
  size_t frame_count[16];
  size_t padding[48];
} SysprofCaptureStat;

/* The number of frames of @type in @stat, TRACE and DBUS_MESSAGE included. */
static inline size_t
sysprof_capture_stat_get (const SysprofCaptureStat *stat, unsigned int type)
{
  if (type < 16)
    return stat->frame_count[type];
  return type < SYSPROF_CAPTURE_FRAME_LAST ? stat->padding[type - 16] : 0;
}

/* Fills @addrs (room for @n_addrs) with a backtrace, returns how many were written. */
typedef int (*SysprofBacktraceFunc) (SysprofCaptureAddress *addrs, unsigned int n_addrs, void *user_data);

static inline int
sysprof_capture_address_compare (SysprofCaptureAddress a, SysprofCaptureAddress b)
{
  return a < b ? -1 : a > b ? 1 : 0;
}

SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureFileHeader) == 256, "SysprofCaptureFileHeader changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFileHeader, capture_time) == 8, "header capture_time moved");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFileHeader, time) == 72, "header time moved");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFileHeader, end_time) == 80, "header end_time moved");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFileHeader, suffix) == 88, "header suffix moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureFrame) == 24, "SysprofCaptureFrame changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFrame, time) == 8, "frame time moved");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFrame, padding2) == 20, "frame padding2 moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureTimestamp) == 24, "SysprofCaptureTimestamp changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureExit) == 24, "SysprofCaptureExit changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureFork) == 28, "SysprofCaptureFork changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureProcess) == 24, "SysprofCaptureProcess changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureMap) == 56, "SysprofCaptureMap changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureMap, inode) == 48, "map inode moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureJitmap) == 28, "SysprofCaptureJitmap changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureSample) == 32, "SysprofCaptureSample changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureSample, tid) == 28, "sample tid moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureTrace) == 32, "SysprofCaptureTrace changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureCounter) == 128, "SysprofCaptureCounter changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureCounter, value) == 120, "counter value moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureCounterDefine) == 32, "SysprofCaptureCounterDefine changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureCounterValues) == 96, "SysprofCaptureCounterValues changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureCounterSet) == 32, "SysprofCaptureCounterSet changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureMark) == 96, "SysprofCaptureMark changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureMark, name) == 56, "mark name moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureMetadata) == 64, "SysprofCaptureMetadata changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureLog) == 64, "SysprofCaptureLog changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureLog, domain) == 32, "log domain moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureFileChunk) == 284, "SysprofCaptureFileChunk changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureFileChunk, path) == 28, "file chunk path moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureAllocation) == 48, "SysprofCaptureAllocation changed size");
SYSPROF_STATIC_ASSERT (offsetof (SysprofCaptureAllocation, tid) == 40, "allocation tid moved");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureOverlay) == 32, "SysprofCaptureOverlay changed size");
SYSPROF_STATIC_ASSERT (sizeof (SysprofCaptureDBusMessage) == 28, "SysprofCaptureDBusMessage changed size");

SYSPROF_END_DECLS
