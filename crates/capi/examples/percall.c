/* Per-call cost of libperp from C: the one-shot perp_solve_friction against a solver kept
   across calls (perp_solver_friction), on the same small dense problems, in interleaved
   blocks; prints the median time per call of each and their ratio.

   cargo build --release -p perp-capi
   cc -O2 -std=c99 -Icrates/capi/include crates/capi/examples/percall.c \
       target/release/libperp.a -lpthread -ldl -lm -o /tmp/percall && /tmp/percall */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "perp.h"

#define ROUNDS 9
#define CALLS 20000
#define MAXC 4

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* W = J Jt + 0.1 I for a fixed pseudo-random J (3nc x 3nc+3), column-major; q pushes every
   contact into the ground with some sliding. */
static void problem(int nc, double *W, double *q, double *mu) {
    int n = 3 * nc, m = n + 3;
    double J[3 * MAXC * (3 * MAXC + 3)];
    unsigned s = 12345u;
    for (int k = 0; k < n * m; k++) {
        s = s * 1103515245u + 12345u;
        J[k] = ((s >> 8) & 0xffff) / 32768.0 - 1.0;
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double v = a == b ? 0.1 : 0.0;
            for (int k = 0; k < m; k++) v += J[a * m + k] * J[b * m + k];
            W[b * n + a] = v;
        }
    for (int i = 0; i < n; i++) q[i] = i % 3 == 0 ? -1.0 : 0.3 * ((i % 5) - 2);
    for (int c = 0; c < nc; c++) mu[c] = 0.5;
}

int main(void) {
    const char *solvers[] = {"nsgs", "ac-newton"};
    int sizes[] = {1, 4};
    double W[9 * MAXC * MAXC], q[3 * MAXC], mu[MAXC], r[3 * MAXC], u[3 * MAXC];
    PerpReport rep;
    printf("%-10s %3s %12s %12s %8s\n", "solver", "nc", "one-shot ns", "kept ns", "ratio");
    for (int si = 0; si < 2; si++)
        for (int zi = 0; zi < 2; zi++) {
            int nc = sizes[zi], n = 3 * nc;
            problem(nc, W, q, mu);
            PerpMatrix wm = perp_matrix_dense(n, n, W);
            PerpSolver *kept = perp_solver_new(PERP_FAMILY_FRICTION, solvers[si], NULL);
            double one[ROUNDS], keep[ROUNDS];
            for (int k = 0; k < ROUNDS; k++) {
                /* Alternate which side goes first. */
                for (int side = 0; side < 2; side++) {
                    int which = (k + side) % 2;
                    double t0 = now();
                    for (int c = 0; c < CALLS; c++) {
                        q[0] = -1.0 - 1e-6 * c; /* new values at every call */
                        if (which == 0)
                            perp_solve_friction(solvers[si], 3, &wm, q, mu, nc, NULL, NULL, r, u, &rep);
                        else
                            perp_solver_friction(kept, 3, &wm, q, mu, nc, NULL, r, u, &rep);
                        if (rep.status != PERP_STATUS_SOLVED) {
                            fprintf(stderr, "%s nc=%d: %s\n", solvers[si], nc, perp_status_name(rep.status));
                            return 1;
                        }
                    }
                    double per = (now() - t0) / CALLS * 1e9;
                    if (which == 0) one[k] = per; else keep[k] = per;
                }
            }
            perp_solver_free(kept);
            qsort(one, ROUNDS, sizeof one[0], cmp);
            qsort(keep, ROUNDS, sizeof keep[0], cmp);
            printf("%-10s %3d %12.0f %12.0f %8.2f\n", solvers[si], nc, one[ROUNDS / 2], keep[ROUNDS / 2],
                   keep[ROUNDS / 2] / one[ROUNDS / 2]);
        }
    return 0;
}
