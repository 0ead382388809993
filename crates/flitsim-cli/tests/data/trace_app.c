/* A small MPI program with a known set of calls, traced on 4 ranks by
 * tests/trace_record.rs (which lists the operations each rank must show). */
#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int next = (r + 1) % p, prev = (r + p - 1) % p, across = (r + 2) % p;
    int two[2] = {r, r}, sixteen[16] = {0}, in16[16], one = r, got;
    double four[4] = {1, 2, 3, 4}, sum[4];
    char hundred[100] = {0};
    int blocks[8] = {0}, gotblocks[8];

    /* A ring of blocking calls (8 bytes, tag 1): even ranks send first; odd ones receive
     * from any source, without a status. */
    if (r % 2 == 0) {
        MPI_Send(two, 2, MPI_INT, next, 1, MPI_COMM_WORLD);
        MPI_Recv(two, 2, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(two, 2, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(two, 2, MPI_INT, next, 1, MPI_COMM_WORLD);
    }
    /* Non-blocking around the ring (64 bytes, tag 5), completed together. */
    MPI_Request reqs[2];
    MPI_Irecv(in16, 16, MPI_INT, prev, 5, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(sixteen, 16, MPI_INT, next, 5, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    /* Two communicators of the even and the odd ranks, in reverse rank order. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
    MPI_Bcast(hundred, 100, MPI_CHAR, 0, half);
    MPI_Allreduce(four, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(blocks, 2, MPI_INT, gotblocks, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    /* A wildcard receive completed by its own wait (4 bytes, tag 9). */
    MPI_Request rr, sr;
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &rr);
    MPI_Isend(&one, 1, MPI_INT, across, 9, MPI_COMM_WORLD, &sr);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
