/* flitsim's MPI tracer: a PMPI interposition library that records an MPI application's
 * communication as an OTF2 archive, the input of flitsim's application replay
 * (crates/flitsim-core/src/traffic/app/otf2.rs reads it). See README.md beside this file.
 *
 *   mpicc -shared -fPIC -O2 flitsim_tracer.c -lotf2 -o libflitsim_tracer.so
 *   FLITSIM_TRACE_DIR=out LD_PRELOAD=$PWD/libflitsim_tracer.so mpirun -np 4 ./app
 *
 * One OTF2 location per rank (location and process ids = the world rank); every wrapped
 * call is a region named after it (paradigm MPI) holding its MPI events; times are
 * CLOCK_MONOTONIC nanoseconds (timer resolution 1e9). Collective sizes follow Score-P's
 * convention: the bytes of the rank's own send and receive buffers, the root counting its
 * own block. Communicators: MPI_COMM_WORLD is 0; one made by MPI_Comm_dup, _split or
 * _create is numbered by its members together (1 + n * c + w, where w is the world rank of
 * its rank 0 and c how many communicators w had made before); any other one (a Cartesian
 * communicator, ...) is defined when first used, numbered by a hash of its members, so two
 * such communicators with the same members are one. Single-threaded use only
 * (MPI_THREAD_MULTIPLE applications are traced as long as one thread calls MPI). */
#define OTF2_MPI_USE_PMPI /* the archive's own collectives must not be traced */
#include <mpi.h>
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/otf2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Regions: one per wrapped call ---- */
#define REGIONS(X)                                                                                                     \
    X(Init) X(Init_thread) X(Finalize) X(Send) X(Ssend) X(Bsend) X(Rsend) X(Isend) X(Issend) X(Recv) X(Irecv)           \
        X(Sendrecv) X(Sendrecv_replace) X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany)     \
            X(Testsome) X(Barrier)         \
            X(Bcast) X(Reduce) X(Allreduce) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather) X(Allgatherv)      \
                X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Reduce_scatter_block) X(Comm_dup) X(Comm_split)            \
                    X(Comm_create)
#define AS_ENUM(name) R_##name,
#define AS_NAME(name) "MPI_" #name,
enum region { REGIONS(AS_ENUM) REGION_COUNT };
static const char *region_names[REGION_COUNT] = {REGIONS(AS_NAME)};

/* ---- State of this process ---- */
static OTF2_Archive *archive;
static OTF2_EvtWriter *events;
static int tracing; /* between MPI_Init and MPI_Finalize, when the archive opened */
static int world_rank, world_size;
static uint64_t next_request = 1;
static uint32_t comms_made; /* communicators this process made (dup, split, create) */

static uint64_t now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *data, bool final) {
    (void)user; (void)type; (void)loc; (void)data; (void)final;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc) {
    (void)user; (void)type; (void)loc;
    return now();
}
static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

/* ---- Communicators ---- */
struct comm {
    MPI_Comm handle;
    uint32_t ref;
    uint32_t size;
    uint64_t *members; /* world ranks, in communicator rank order */
};
static struct comm *comms;
static size_t ncomms, capcomms;

/* The world ranks of `c`'s members, in its rank order (malloc'ed; NULL for an inter-communicator). */
static uint64_t *members_of(MPI_Comm c, uint32_t *size) {
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        return NULL;
    int n;
    PMPI_Comm_size(c, &n);
    MPI_Group g, wg;
    PMPI_Comm_group(c, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    uint64_t *m = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Group_translate_ranks(g, n, in, wg, out);
    for (int i = 0; i < n; i++)
        m[i] = (uint64_t)out[i];
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(in);
    free(out);
    *size = (uint32_t)n;
    return m;
}

static void remember(MPI_Comm c, uint32_t ref, uint32_t size, uint64_t *members) {
    if (ncomms == capcomms) {
        capcomms = capcomms ? 2 * capcomms : 16;
        comms = realloc(comms, capcomms * sizeof *comms);
    }
    comms[ncomms++] = (struct comm){c, ref, size, members};
}

/* A communicator just made by a collective call of its members: numbered together. */
static void define_made(MPI_Comm c) {
    if (!tracing || c == MPI_COMM_NULL)
        return;
    uint32_t size;
    uint64_t *m = members_of(c, &size);
    if (!m)
        return;
    uint32_t mine = comms_made++;
    uint32_t leader = mine;
    PMPI_Bcast(&leader, 1, MPI_UINT32_T, 0, c); /* the count of the communicator's rank 0 */
    remember(c, 1 + (uint32_t)world_size * leader + (uint32_t)m[0], size, m);
}

/* The archive's id of `c` (defining it when first seen); OTF2_UNDEFINED_COMM when it cannot
 * be recorded (an inter-communicator). */
static uint32_t comm_ref(MPI_Comm c) {
    if (c == MPI_COMM_WORLD)
        return 0;
    for (size_t i = 0; i < ncomms; i++)
        if (comms[i].handle == c)
            return comms[i].ref;
    uint32_t size;
    uint64_t *m = members_of(c, &size);
    if (!m)
        return OTF2_UNDEFINED_COMM;
    uint32_t h = 2166136261u; /* FNV-1a of the members */
    for (uint32_t i = 0; i < size; i++) {
        h ^= (uint32_t)m[i];
        h *= 16777619u;
    }
    uint32_t ref = 0x80000000u | (h & 0x7fffffffu);
    remember(c, ref, size, m);
    return ref;
}

static int comm_size(MPI_Comm c) {
    int n;
    PMPI_Comm_size(c, &n);
    return n;
}
static int comm_rank(MPI_Comm c) {
    int r;
    PMPI_Comm_rank(c, &r);
    return r;
}
static uint64_t type_size(MPI_Datatype t) {
    int s = 0;
    PMPI_Type_size(t, &s);
    return (uint64_t)s;
}

/* ---- Requests: ids for the archive, by MPI_Request handle ---- */
struct request {
    MPI_Request handle;
    uint64_t id;
    int recv; /* a receive (completion records MpiIrecv) or a send */
    uint32_t comm;
};
static struct request *requests;
static size_t nrequests, caprequests;

static uint64_t track(MPI_Request handle, int recv, uint32_t comm) {
    if (nrequests == caprequests) {
        caprequests = caprequests ? 2 * caprequests : 64;
        requests = realloc(requests, caprequests * sizeof *requests);
    }
    uint64_t id = next_request++;
    requests[nrequests++] = (struct request){handle, id, recv, comm};
    return id;
}

/* The index of the tracked request `handle`, or -1. */
static long find(MPI_Request handle) {
    if (handle == MPI_REQUEST_NULL)
        return -1;
    for (size_t i = nrequests; i-- > 0;)
        if (requests[i].handle == handle)
            return (long)i;
    return -1;
}

/* Record the completion of tracked request `i` (as `find` gave it) with its status. */
static void complete(long i, const MPI_Status *st) {
    if (i < 0 || (size_t)i >= nrequests)
        return;
    struct request r = requests[i];
    memmove(requests + i, requests + i + 1, (nrequests - (size_t)i - 1) * sizeof *requests);
    nrequests--;
    uint64_t t = now();
    if (!r.recv) {
        OTF2_EvtWriter_MpiIsendComplete(events, NULL, t, r.id);
        return;
    }
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled || st->MPI_SOURCE < 0) { /* a receive cancelled (MPI_Cancel), never matched */
        OTF2_EvtWriter_MpiRequestCancelled(events, NULL, t, r.id);
        return;
    }
    int count = 0;
    PMPI_Get_count(st, MPI_BYTE, &count);
    OTF2_EvtWriter_MpiIrecv(events, NULL, t, (uint32_t)st->MPI_SOURCE, r.comm, (uint32_t)st->MPI_TAG,
                            (uint64_t)(count < 0 ? 0 : count), r.id);
}

/* ---- Recording helpers ---- */
#define ENTER(r)                                                                                                       \
    if (tracing)                                                                                                       \
    OTF2_EvtWriter_Enter(events, NULL, now(), R_##r)
#define LEAVE(r)                                                                                                       \
    if (tracing)                                                                                                       \
    OTF2_EvtWriter_Leave(events, NULL, now(), R_##r)

/* A test call is recorded only when it completes a tracked request: polling loops would
 * otherwise fill the archive with empty regions (hpcc's RandomAccess: about a million per
 * rank and second); the time of the failed polls counts as computation. */
#define TESTED(r, entered) OTF2_EvtWriter_Enter(events, NULL, entered, R_##r)

static int any_tracked(int n, const long *at) {
    for (int i = 0; i < n; i++)
        if (at[i] >= 0)
            return 1;
    return 0;
}

static void record_send(int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type) {
    if (!tracing || dest == MPI_PROC_NULL)
        return;
    uint32_t c = comm_ref(comm);
    if (c != OTF2_UNDEFINED_COMM)
        OTF2_EvtWriter_MpiSend(events, NULL, now(), (uint32_t)dest, c, (uint32_t)tag, (uint64_t)count * type_size(type));
}

static void record_recv(MPI_Comm comm, const MPI_Status *st) {
    if (!tracing || st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    uint32_t c = comm_ref(comm);
    int count = 0;
    PMPI_Get_count(st, MPI_BYTE, &count);
    if (c != OTF2_UNDEFINED_COMM)
        OTF2_EvtWriter_MpiRecv(events, NULL, now(), (uint32_t)st->MPI_SOURCE, c, (uint32_t)st->MPI_TAG,
                               (uint64_t)(count < 0 ? 0 : count));
}

static void coll_begin(void) {
    if (tracing)
        OTF2_EvtWriter_MpiCollectiveBegin(events, NULL, now());
}
static void coll_end(OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t received) {
    if (!tracing)
        return;
    uint32_t c = comm_ref(comm);
    if (c != OTF2_UNDEFINED_COMM)
        OTF2_EvtWriter_MpiCollectiveEnd(events, NULL, now(), op, c, root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root,
                                        sent, received);
}

/* ---- Init and Finalize ---- */
static void start(uint64_t entered, enum region r) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *dir = getenv("FLITSIM_TRACE_DIR");
    if (!dir || !*dir)
        dir = "flitsim-trace";
    archive = OTF2_Archive_Open(dir, "trace", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                OTF2_COMPRESSION_NONE);
    int ok = archive && OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL) == OTF2_SUCCESS &&
             OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL) == OTF2_SUCCESS &&
             OTF2_Archive_OpenEvtFiles(archive) == OTF2_SUCCESS;
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (world_rank == 0)
            fprintf(stderr,
                    "flitsim tracer: cannot create the OTF2 archive %s/trace (does it exist already? remove %s/trace "
                    "and %s/trace.otf2, or set FLITSIM_TRACE_DIR to a new folder): the run is not traced\n",
                    dir, dir, dir);
        return;
    }
    events = OTF2_Archive_GetEvtWriter(archive, (OTF2_LocationRef)world_rank);
    tracing = events != NULL;
    if (tracing) {
        OTF2_EvtWriter_Enter(events, NULL, entered, r);
        OTF2_EvtWriter_Leave(events, NULL, now(), r);
    }
}

int MPI_Init(int *argc, char ***argv) {
    uint64_t t = now();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start(t, R_Init);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    uint64_t t = now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start(t, R_Init_thread);
    return rc;
}

static int by_ref(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Close this rank's events, gather the communicators and event counts to rank 0, which
 * writes the global definitions, and close the archive (collective). */
static void finish(void) {
    ENTER(Finalize);
    LEAVE(Finalize);
    tracing = 0;
    uint64_t count = 0;
    OTF2_EvtWriter_GetNumberOfEvents(events, &count);
    OTF2_Archive_CloseEvtWriter(archive, events);
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_Archive_OpenDefFiles(archive);
    OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, (OTF2_LocationRef)world_rank));
    OTF2_Archive_CloseDefFiles(archive);

    /* Communicators as (ref, size, members...) records. */
    int len = 0;
    for (size_t i = 0; i < ncomms; i++)
        len += 2 + (int)comms[i].size;
    uint64_t *mine = malloc(sizeof(uint64_t) * (size_t)(len ? len : 1));
    int k = 0;
    for (size_t i = 0; i < ncomms; i++) {
        mine[k++] = comms[i].ref;
        mine[k++] = comms[i].size;
        for (uint32_t j = 0; j < comms[i].size; j++)
            mine[k++] = comms[i].members[j];
    }
    int *lens = NULL, *offsets = NULL;
    uint64_t *all = NULL, *counts = NULL;
    int total = 0;
    if (world_rank == 0) {
        lens = malloc(sizeof(int) * (size_t)world_size);
        offsets = malloc(sizeof(int) * (size_t)world_size);
        counts = malloc(sizeof(uint64_t) * (size_t)world_size);
    }
    PMPI_Gather(&count, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        for (int r = 0; r < world_size; r++) {
            offsets[r] = total;
            total += lens[r];
        }
        all = malloc(sizeof(uint64_t) * (size_t)(total ? total : 1));
    }
    PMPI_Gatherv(mine, len, MPI_UINT64_T, all, lens, offsets, MPI_UINT64_T, 0, MPI_COMM_WORLD);

    if (world_rank == 0) {
        OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
        OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, 0, OTF2_UNDEFINED_TIMESTAMP);
        uint32_t s = 0;
        OTF2_GlobalDefWriter_WriteString(g, s++, "");
        for (int r = 0; r < REGION_COUNT; r++) {
            OTF2_GlobalDefWriter_WriteString(g, s, region_names[r]);
            OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)r, s, s, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                             OTF2_REGION_FLAG_NONE, 0, 0, 0);
            s++;
        }
        uint32_t machine = s++;
        OTF2_GlobalDefWriter_WriteString(g, machine, "machine");
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
        uint64_t *ranks = malloc(sizeof(uint64_t) * (size_t)world_size);
        for (int r = 0; r < world_size; r++) {
            char name[32];
            snprintf(name, sizeof name, "MPI rank %d", r);
            OTF2_GlobalDefWriter_WriteString(g, s, name);
            OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                    OTF2_UNDEFINED_LOCATION_GROUP);
            OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, s, OTF2_LOCATION_TYPE_CPU_THREAD, counts[r],
                                               (OTF2_LocationGroupRef)r);
            s++;
            ranks[r] = (uint64_t)r;
        }
        /* Group 0: rank -> location; group 1: the world; then one per communicator. */
        OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)world_size, ranks);
        OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)world_size, ranks);
        uint32_t world_name = s++;
        OTF2_GlobalDefWriter_WriteString(g, world_name, "MPI_COMM_WORLD");
        OTF2_GlobalDefWriter_WriteComm(g, 0, world_name, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        /* Each communicator once (every member reported it), in the order of their ids. */
        size_t n = 0;
        uint64_t(*index)[2] = malloc(sizeof *index * (size_t)(total ? total : 1));
        for (int at = 0; at < total; at += 2 + (int)all[at + 1]) {
            index[n][0] = all[at];
            index[n][1] = (uint64_t)at;
            n++;
        }
        qsort(index, n, sizeof *index, by_ref);
        uint32_t group = 2;
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && index[i][0] == index[i - 1][0])
                continue;
            uint64_t *rec = all + index[i][1];
            char name[32];
            snprintf(name, sizeof name, "comm %llu", (unsigned long long)rec[0]);
            OTF2_GlobalDefWriter_WriteString(g, s, name);
            OTF2_GlobalDefWriter_WriteGroup(g, group, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, (uint32_t)rec[1], rec + 2);
            OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)rec[0], s, group, 0, OTF2_COMM_FLAG_NONE);
            s++;
            group++;
        }
        free(index);
        free(ranks);
        OTF2_Archive_CloseGlobalDefWriter(archive, g);
    }
    OTF2_Archive_Close(archive);
    free(mine);
    free(all);
    free(lens);
    free(offsets);
    free(counts);
}

int MPI_Finalize(void) {
    if (tracing)
        finish();
    return PMPI_Finalize();
}

/* ---- Point to point ---- */
#define BLOCKING_SEND(NAME)                                                                                            \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {                  \
        ENTER(NAME);                                                                                                   \
        record_send(dest, comm, tag, count, type);                                                                     \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                                                       \
        LEAVE(NAME);                                                                                                   \
        return rc;                                                                                                     \
    }
BLOCKING_SEND(Send)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(NAME)                                                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,                    \
                   MPI_Request *req) {                                                                                 \
        ENTER(NAME);                                                                                                   \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                                  \
        if (tracing && rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {                                                   \
            uint32_t c = comm_ref(comm);                                                                               \
            if (c != OTF2_UNDEFINED_COMM)                                                                              \
                OTF2_EvtWriter_MpiIsend(events, NULL, now(), (uint32_t)dest, c, (uint32_t)tag,                         \
                                        (uint64_t)count * type_size(type), track(*req, 0, c));                         \
        }                                                                                                              \
        LEAVE(NAME);                                                                                                   \
        return rc;                                                                                                     \
    }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Issend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    ENTER(Recv);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    if (rc == MPI_SUCCESS)
        record_recv(comm, status);
    LEAVE(Recv);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req) {
    ENTER(Irecv);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (tracing && rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
        uint32_t c = comm_ref(comm);
        if (c != OTF2_UNDEFINED_COMM)
            OTF2_EvtWriter_MpiIrecvRequest(events, NULL, now(), track(*req, 1, c));
    }
    LEAVE(Irecv);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    ENTER(Sendrecv);
    record_send(dest, comm, stag, scount, stype);
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
    if (rc == MPI_SUCCESS)
        record_recv(comm, status);
    LEAVE(Sendrecv);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    ENTER(Sendrecv_replace);
    record_send(dest, comm, stag, count, type);
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    if (rc == MPI_SUCCESS)
        record_recv(comm, status);
    LEAVE(Sendrecv_replace);
    return rc;
}

/* ---- Completion ---- */
int MPI_Wait(MPI_Request *req, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    ENTER(Wait);
    long i = tracing ? find(*req) : -1;
    int rc = PMPI_Wait(req, status);
    if (tracing && rc == MPI_SUCCESS)
        complete(i, status);
    LEAVE(Wait);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    uint64_t t = now();
    long i = tracing ? find(*req) : -1;
    int rc = PMPI_Test(req, flag, status);
    if (tracing && rc == MPI_SUCCESS && *flag && i >= 0) {
        TESTED(Test, t);
        complete(i, status);
        LEAVE(Test);
    }
    return rc;
}

/* The tracked index of each of `n` requests (before a call that may free them). */
static long *find_all(int n, const MPI_Request *reqs) {
    long *at = malloc(sizeof(long) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        at[i] = tracing ? find(reqs[i]) : -1;
    return at;
}

/* Complete the tracked requests among `n` (request i = which[k], or k), in that order:
 * completing one removes it from the table, so the remembered indices above it move down. */
static void complete_all(int n, long *at, const int *which, const MPI_Status *st) {
    for (int k = 0; k < n; k++) {
        long i = at[which ? which[k] : k];
        if (i < 0)
            continue;
        complete(i, &st[k]);
        for (int j = 0; j < n; j++) {
            long *a = &at[which ? which[j] : j];
            if (*a == i) /* the same handle twice: completed once */
                *a = -1;
            else if (*a > i)
                (*a)--;
        }
    }
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? malloc(sizeof(MPI_Status) * (size_t)(n ? n : 1)) : statuses;
    ENTER(Waitall);
    long *at = find_all(n, reqs);
    int rc = PMPI_Waitall(n, reqs, st);
    if (tracing && rc == MPI_SUCCESS)
        complete_all(n, at, NULL, st);
    LEAVE(Waitall);
    free(at);
    if (st != statuses)
        free(st);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[]) {
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? malloc(sizeof(MPI_Status) * (size_t)(n ? n : 1)) : statuses;
    uint64_t t = now();
    long *at = find_all(n, reqs);
    int rc = PMPI_Testall(n, reqs, flag, st);
    if (tracing && rc == MPI_SUCCESS && *flag && any_tracked(n, at)) {
        TESTED(Testall, t);
        complete_all(n, at, NULL, st);
        LEAVE(Testall);
    }
    free(at);
    if (st != statuses)
        free(st);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    ENTER(Waitany);
    long *at = find_all(n, reqs);
    int rc = PMPI_Waitany(n, reqs, index, status);
    if (tracing && rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        complete(at[*index], status);
    LEAVE(Waitany);
    free(at);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) {
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? malloc(sizeof(MPI_Status) * (size_t)(n ? n : 1)) : statuses;
    ENTER(Waitsome);
    long *at = find_all(n, reqs);
    int rc = PMPI_Waitsome(n, reqs, outcount, indices, st);
    if (tracing && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        complete_all(*outcount, at, indices, st);
    LEAVE(Waitsome);
    free(at);
    if (st != statuses)
        free(st);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status) {
    MPI_Status local;
    if (status == MPI_STATUS_IGNORE)
        status = &local;
    uint64_t t = now();
    long *at = find_all(n, reqs);
    int rc = PMPI_Testany(n, reqs, index, flag, status);
    if (tracing && rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && at[*index] >= 0) {
        TESTED(Testany, t);
        complete(at[*index], status);
        LEAVE(Testany);
    }
    free(at);
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) {
    MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? malloc(sizeof(MPI_Status) * (size_t)(n ? n : 1)) : statuses;
    uint64_t t = now();
    long *at = find_all(n, reqs);
    int rc = PMPI_Testsome(n, reqs, outcount, indices, st);
    if (tracing && rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && *outcount > 0) {
        TESTED(Testsome, t);
        complete_all(*outcount, at, indices, st);
        LEAVE(Testsome);
    }
    free(at);
    if (st != statuses)
        free(st);
    return rc;
}

/* ---- Collectives (sizes as Score-P gives them; see the header comment) ---- */
int MPI_Barrier(MPI_Comm comm) {
    ENTER(Barrier);
    coll_begin();
    int rc = PMPI_Barrier(comm);
    coll_end(OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    LEAVE(Barrier);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    ENTER(Bcast);
    coll_begin();
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    if (tracing) {
        uint64_t m = (uint64_t)count * type_size(type), p = (uint64_t)comm_size(comm);
        int me = comm_rank(comm) == root;
        coll_end(OTF2_COLLECTIVE_OP_BCAST, comm, root, me ? p * m : 0, m);
    }
    LEAVE(Bcast);
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
    ENTER(Reduce);
    coll_begin();
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    if (tracing) {
        uint64_t m = (uint64_t)count * type_size(type), p = (uint64_t)comm_size(comm);
        coll_end(OTF2_COLLECTIVE_OP_REDUCE, comm, root, m, comm_rank(comm) == root ? p * m : 0);
    }
    LEAVE(Reduce);
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    ENTER(Allreduce);
    coll_begin();
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    if (tracing) {
        uint64_t m = (uint64_t)count * type_size(type), p = (uint64_t)comm_size(comm);
        coll_end(OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, p * m, p * m);
    }
    LEAVE(Allreduce);
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm) {
    ENTER(Gather);
    coll_begin();
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    if (tracing) {
        uint64_t p = (uint64_t)comm_size(comm);
        if (comm_rank(comm) == root) {
            uint64_t b = (uint64_t)rcount * type_size(rtype);
            coll_end(OTF2_COLLECTIVE_OP_GATHER, comm, root, b, p * b);
        } else {
            coll_end(OTF2_COLLECTIVE_OP_GATHER, comm, root, (uint64_t)scount * type_size(stype), 0);
        }
    }
    LEAVE(Gather);
    return rc;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[],
                MPI_Datatype rtype, int root, MPI_Comm comm) {
    ENTER(Gatherv);
    coll_begin();
    int rc = PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    if (tracing) {
        int me = comm_rank(comm), p = comm_size(comm);
        if (me == root) {
            uint64_t ts = type_size(rtype), all = 0;
            for (int i = 0; i < p; i++)
                all += (uint64_t)rcounts[i] * ts;
            coll_end(OTF2_COLLECTIVE_OP_GATHERV, comm, root, (uint64_t)rcounts[me] * ts, all);
        } else {
            coll_end(OTF2_COLLECTIVE_OP_GATHERV, comm, root, (uint64_t)scount * type_size(stype), 0);
        }
    }
    LEAVE(Gatherv);
    return rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm) {
    ENTER(Scatter);
    coll_begin();
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    if (tracing) {
        uint64_t p = (uint64_t)comm_size(comm);
        if (comm_rank(comm) == root) {
            uint64_t b = (uint64_t)scount * type_size(stype);
            coll_end(OTF2_COLLECTIVE_OP_SCATTER, comm, root, p * b, b);
        } else {
            coll_end(OTF2_COLLECTIVE_OP_SCATTER, comm, root, 0, (uint64_t)rcount * type_size(rtype));
        }
    }
    LEAVE(Scatter);
    return rc;
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm) {
    ENTER(Scatterv);
    coll_begin();
    int rc = PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    if (tracing) {
        int me = comm_rank(comm), p = comm_size(comm);
        if (me == root) {
            uint64_t ts = type_size(stype), all = 0;
            for (int i = 0; i < p; i++)
                all += (uint64_t)scounts[i] * ts;
            coll_end(OTF2_COLLECTIVE_OP_SCATTERV, comm, root, all, (uint64_t)scounts[me] * ts);
        } else {
            coll_end(OTF2_COLLECTIVE_OP_SCATTERV, comm, root, 0, (uint64_t)rcount * type_size(rtype));
        }
    }
    LEAVE(Scatterv);
    return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm) {
    ENTER(Allgather);
    coll_begin();
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    if (tracing) {
        uint64_t p = (uint64_t)comm_size(comm), b = (uint64_t)rcount * type_size(rtype);
        coll_end(OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, p * b, p * b);
    }
    LEAVE(Allgather);
    return rc;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
    ENTER(Allgatherv);
    coll_begin();
    int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    if (tracing) {
        int me = comm_rank(comm), p = comm_size(comm);
        uint64_t ts = type_size(rtype), all = 0;
        for (int i = 0; i < p; i++)
            all += (uint64_t)rcounts[i] * ts;
        coll_end(OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1, (uint64_t)p * (uint64_t)rcounts[me] * ts, all);
    }
    LEAVE(Allgatherv);
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm) {
    ENTER(Alltoall);
    coll_begin();
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    if (tracing) {
        uint64_t p = (uint64_t)comm_size(comm), b = (uint64_t)rcount * type_size(rtype);
        coll_end(OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, p * b, p * b);
    }
    LEAVE(Alltoall);
    return rc;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
    ENTER(Alltoallv);
    coll_begin();
    int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    if (tracing) {
        int p = comm_size(comm);
        uint64_t rs = type_size(rtype), ss = sbuf == MPI_IN_PLACE ? rs : type_size(stype), sent = 0, received = 0;
        const int *sc = sbuf == MPI_IN_PLACE ? rcounts : scounts;
        for (int i = 0; i < p; i++) {
            sent += (uint64_t)sc[i] * ss;
            received += (uint64_t)rcounts[i] * rs;
        }
        coll_end(OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1, sent, received);
    }
    LEAVE(Alltoallv);
    return rc;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) {
    ENTER(Reduce_scatter);
    coll_begin();
    int rc = PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
    if (tracing) {
        int me = comm_rank(comm), p = comm_size(comm);
        uint64_t ts = type_size(type), all = 0;
        for (int i = 0; i < p; i++)
            all += (uint64_t)rcounts[i] * ts;
        coll_end(OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1, all, (uint64_t)p * (uint64_t)rcounts[me] * ts);
    }
    LEAVE(Reduce_scatter);
    return rc;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    ENTER(Reduce_scatter_block);
    coll_begin();
    int rc = PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
    if (tracing) {
        uint64_t p = (uint64_t)comm_size(comm), b = (uint64_t)rcount * type_size(type);
        coll_end(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1, p * b, p * b);
    }
    LEAVE(Reduce_scatter_block);
    return rc;
}

/* ---- Communicators ---- */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    ENTER(Comm_dup);
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS)
        define_made(*newcomm);
    LEAVE(Comm_dup);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    ENTER(Comm_split);
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS)
        define_made(*newcomm);
    LEAVE(Comm_split);
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    ENTER(Comm_create);
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (rc == MPI_SUCCESS)
        define_made(*newcomm);
    LEAVE(Comm_create);
    return rc;
}

/* Not a region: a freed handle may be reused for another communicator, so forget it. */
int MPI_Comm_free(MPI_Comm *comm) {
    for (size_t i = 0; i < ncomms; i++)
        if (comms[i].handle == *comm) {
            comms[i].handle = MPI_COMM_NULL; /* its definition stays for the archive */
            break;
        }
    return PMPI_Comm_free(comm);
}
