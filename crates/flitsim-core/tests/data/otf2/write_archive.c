/* Writes small OTF2 archives with known events for crates/flitsim-core/tests/otf2.rs,
 * through OTF2's writer API (serial).
 *
 *   write_archive DIR SCENARIO     writes DIR/trace.otf2 (and DIR/trace/, DIR/trace.def)
 *
 * Scenarios: roundtrip (4 ranks: send/recv, isend/irecv/wait, a bcast on the world and an
 * alltoall on a two-rank sub-communicator, compute between calls), alltoallw (2 ranks, an
 * unsupported collective), open-irecv (1 rank, a receive request never completed).
 * Times are in microsecond ticks (timer resolution 1e6). */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAITALL, R_BCAST, R_ALLTOALL, R_USER, R_WAIT, R_INIT, R_FINALIZE, R_COUNT };
static const char *region_names[R_COUNT] = {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Waitall",
                                            "MPI_Bcast", "MPI_Alltoall", "compute_kernel", "MPI_Wait",
                                            "MPI_Init", "MPI_Finalize"};
enum { WORLD = 5, SUB = 9 }; /* communicator ids, deliberately not 0 and 1 */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool last) {
    (void)u; (void)t; (void)l; (void)c; (void)last;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l) {
    (void)u; (void)t; (void)l;
    return 0;
}
static OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

static void ok(OTF2_ErrorCode e, const char *what) {
    if (e != OTF2_SUCCESS) {
        fprintf(stderr, "%s: %s\n", what, OTF2_Error_GetDescription(e));
        exit(1);
    }
}

static uint64_t counts[4];

#define ENTER(r, t) OTF2_EvtWriter_Enter(w, NULL, t, r)
#define LEAVE(r, t) OTF2_EvtWriter_Leave(w, NULL, t, r)

static void bcast(OTF2_EvtWriter *w, int root) {
    ENTER(R_BCAST, 50);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 50);
    /* Score-P's sizes: the root sends p blocks and receives its own, the others receive one */
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 55, OTF2_COLLECTIVE_OP_BCAST, WORLD, 0, root ? 4 * 256 : 0, 256);
    LEAVE(R_BCAST, 56);
}

static void alltoall(OTF2_EvtWriter *w) {
    ENTER(R_ALLTOALL, 20);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 20);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 24, OTF2_COLLECTIVE_OP_ALLTOALL, SUB, OTF2_UNDEFINED_UINT32, 2 * 32, 2 * 32);
    LEAVE(R_ALLTOALL, 25);
}

static void roundtrip(OTF2_Archive *a) {
    for (int rank = 0; rank < 4; rank++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, rank);
        switch (rank) {
        case 0:
            ENTER(R_SEND, 10);
            OTF2_EvtWriter_MpiSend(w, NULL, 11, 1, WORLD, 7, 100);
            LEAVE(R_SEND, 12);
            ENTER(R_USER, 20); /* a user region: computation */
            LEAVE(R_USER, 25);
            ENTER(R_ISEND, 30);
            OTF2_EvtWriter_MpiIsend(w, NULL, 30, 2, WORLD, 3, 64, 1000);
            LEAVE(R_ISEND, 31);
            ENTER(R_WAIT, 40);
            OTF2_EvtWriter_MpiIsendComplete(w, NULL, 42, 1000);
            LEAVE(R_WAIT, 43);
            bcast(w, 1);
            break;
        case 1:
            ENTER(R_RECV, 10);
            OTF2_EvtWriter_MpiRecv(w, NULL, 15, 0, WORLD, 7, 100);
            LEAVE(R_RECV, 16);
            alltoall(w);
            bcast(w, 0);
            break;
        case 2:
            ENTER(R_IRECV, 10);
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 10, 77);
            LEAVE(R_IRECV, 11);
            ENTER(R_IRECV, 30);
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 30, 78);
            LEAVE(R_IRECV, 31);
            ENTER(R_WAITALL, 40);
            OTF2_EvtWriter_MpiIrecv(w, NULL, 41, 0, WORLD, 3, 64, 77);
            OTF2_EvtWriter_MpiIrecv(w, NULL, 42, 3, WORLD, 9, 8, 78);
            LEAVE(R_WAITALL, 44);
            bcast(w, 0);
            break;
        case 3:
            ENTER(R_SEND, 10);
            OTF2_EvtWriter_MpiSend(w, NULL, 12, 2, WORLD, 9, 8);
            LEAVE(R_SEND, 13);
            alltoall(w);
            bcast(w, 0);
            break;
        }
        ok(OTF2_EvtWriter_GetNumberOfEvents(w, &counts[rank]), "count");
        ok(OTF2_Archive_CloseEvtWriter(a, w), "close events");
    }
}

static void alltoallw(OTF2_Archive *a) {
    for (int rank = 0; rank < 2; rank++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, rank);
        ENTER(R_ALLTOALL, 10);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 10);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 12, OTF2_COLLECTIVE_OP_ALLTOALLW, WORLD, OTF2_UNDEFINED_UINT32, 16, 16);
        LEAVE(R_ALLTOALL, 13);
        ok(OTF2_EvtWriter_GetNumberOfEvents(w, &counts[rank]), "count");
        ok(OTF2_Archive_CloseEvtWriter(a, w), "close events");
    }
}

/* Two ranks that set up for 300 us (MPI_Init), compute, exchange one message and tear
 * down (MPI_Finalize at 400 us): the measured span and MPI time leave both out. */
static void setup(OTF2_Archive *a) {
    for (int rank = 0; rank < 2; rank++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, rank);
        ENTER(R_INIT, 0);
        LEAVE(R_INIT, 300);
        if (rank == 0) {
            ENTER(R_SEND, 310);
            OTF2_EvtWriter_MpiSend(w, NULL, 311, 1, WORLD, 0, 8);
            LEAVE(R_SEND, 312);
        } else {
            ENTER(R_RECV, 310);
            OTF2_EvtWriter_MpiRecv(w, NULL, 314, 0, WORLD, 0, 8);
            LEAVE(R_RECV, 315);
        }
        ENTER(R_FINALIZE, 400);
        LEAVE(R_FINALIZE, 450);
        ok(OTF2_EvtWriter_GetNumberOfEvents(w, &counts[rank]), "count");
        ok(OTF2_Archive_CloseEvtWriter(a, w), "close events");
    }
}

static void open_irecv(OTF2_Archive *a) {
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, 0);
    ENTER(R_IRECV, 10);
    OTF2_EvtWriter_MpiIrecvRequest(w, NULL, 10, 5);
    LEAVE(R_IRECV, 11);
    ok(OTF2_EvtWriter_GetNumberOfEvents(w, &counts[0]), "count");
    ok(OTF2_Archive_CloseEvtWriter(a, w), "close events");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: write_archive DIR roundtrip|alltoallw|setup|open-irecv\n");
        return 2;
    }
    int ranks = !strcmp(argv[2], "roundtrip") ? 4 : !strcmp(argv[2], "alltoallw") || !strcmp(argv[2], "setup") ? 2 : 1;
    OTF2_Archive *a = OTF2_Archive_Open(argv[1], "trace", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        fprintf(stderr, "cannot open the archive\n");
        return 1;
    }
    ok(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), "flush callbacks");
    ok(OTF2_Archive_SetSerialCollectiveCallbacks(a), "collective callbacks");
    ok(OTF2_Archive_OpenEvtFiles(a), "open event files");
    if (ranks == 4)
        roundtrip(a);
    else if (!strcmp(argv[2], "setup"))
        setup(a);
    else if (ranks == 2)
        alltoallw(a);
    else
        open_irecv(a);
    ok(OTF2_Archive_CloseEvtFiles(a), "close event files");
    /* empty local definitions (no mapping tables: the events use the global ids) */
    ok(OTF2_Archive_OpenDefFiles(a), "open definition files");
    for (int r = 0; r < ranks; r++)
        ok(OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, r)), "local definitions");
    ok(OTF2_Archive_CloseDefFiles(a), "close definition files");

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    ok(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000, 0, 100, OTF2_UNDEFINED_TIMESTAMP), "clock");
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(g, s++, "");
    for (int r = 0; r < R_COUNT; r++) {
        OTF2_GlobalDefWriter_WriteString(g, s, region_names[r]);
        OTF2_GlobalDefWriter_WriteRegion(g, r, s, s, 0, OTF2_REGION_ROLE_FUNCTION,
                                         r == R_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
        s++;
    }
    uint32_t node = s++, world_name = s++, sub_name = s++;
    OTF2_GlobalDefWriter_WriteString(g, node, "node");
    OTF2_GlobalDefWriter_WriteString(g, world_name, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(g, sub_name, "sub");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, node, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t locations[4], world[4];
    for (int r = 0; r < ranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, s, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, s, OTF2_LOCATION_TYPE_CPU_THREAD, counts[r], r);
        s++;
        locations[r] = r;
        world[r] = r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, locations);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, world);
    uint64_t sub[2] = {3, 1}; /* comm rank 0 is world rank 3 */
    OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, sub);
    OTF2_GlobalDefWriter_WriteComm(g, WORLD, world_name, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    if (ranks == 4)
        OTF2_GlobalDefWriter_WriteComm(g, SUB, sub_name, 2, WORLD, OTF2_COMM_FLAG_NONE);
    ok(OTF2_Archive_CloseGlobalDefWriter(a, g), "close definitions");
    ok(OTF2_Archive_Close(a), "close archive");
    return 0;
}
