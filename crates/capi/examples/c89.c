/* libperp from C89 (-std=c89 -pedantic): the header, a box-LCP and an MLCP with the report's
   physical error and message, and a solve watched (then stopped) by the settings' callback.
   Built and run by run-example.sh with pkg-config's flags. */
#include <stdio.h>
#include <math.h>
#include "perp.h"

/* What the callback saw: its calls, whether the iterations increased, and when to stop. */
typedef struct {
    size_t calls, last_iteration, stop_after;
    int increasing;
    double last_error;
} Watch;

/* Called after every measured iteration; nonzero stops the solve. */
static int watch(void *user, size_t iteration, double error) {
    Watch *seen = (Watch *)user;
    if (seen->calls > 0 && iteration <= seen->last_iteration) seen->increasing = 0;
    seen->calls++;
    seen->last_iteration = iteration;
    seen->last_error = error;
    return seen->stop_after != 0 && seen->calls >= seen->stop_after;
}

int main(void) {
    double M[4], q[2], lo[2], hi[2], z[2], w[2];
    PerpMatrix m;
    PerpReport rep;
    PerpSettings s;
    Watch seen;
    int status;

    /* M = [2 1; 1 2] column by column, q = (-5, -6); bounds 0 <= z <= (1, +inf). */
    M[0] = 2; M[1] = 1; M[2] = 1; M[3] = 2;
    q[0] = -5; q[1] = -6;
    lo[0] = 0; lo[1] = 0;
    hi[0] = 1; hi[1] = HUGE_VAL;
    m = perp_matrix_dense(2, 2, M);
    s = perp_settings_default();
    s.tol = 1e-10;
    status = perp_solve_box_lcp("pgs", &m, q, 2, lo, hi, NULL, &s, z, w, &rep);
    printf("c89 box-lcp: %s, z = %.6f %.6f, w = %.6f %.6f\n", perp_status_name(status), z[0], z[1], w[0], w[1]);

    /* The same M as an MLCP with its first row an equation: 2u + v = 5, 0 <= v _|_ u + 2v - 6. */
    status = perp_solve_mlcp("bdiff-newton", &m, q, 2, 1, NULL, &s, z, w, &rep);
    printf("c89 mlcp: %s, u = %.6f, v = %.6f, physical error %s\n", perp_status_name(status), z[0], z[1],
           rep.physical_error <= 1e-8 ? "small" : "large");

    /* lower > upper is refused; the report carries the message. */
    lo[0] = 2;
    status = perp_solve_box_lcp(NULL, &m, q, 2, lo, hi, NULL, NULL, z, w, &rep);
    printf("c89 refused (%s): %s\n", perp_status_name(status), rep.message);

    /* Watching psor on the LCP (no bounds): every measured iteration, then stopping it at the
       second call. */
    seen.calls = 0; seen.last_iteration = 0; seen.stop_after = 0; seen.increasing = 1;
    s.tol = 1e-14;
    s.callback = watch;
    s.user = &seen;
    status = perp_solve_lcp("psor", &m, q, 2, NULL, &s, z, w, &rep);
    printf("c89 callback: %s after %lu iterations\n", perp_status_name(status), (unsigned long)rep.iterations);
    printf("c89 callback: called %s at increasing iterations: %s\n", seen.calls > 1 ? "often" : "rarely",
           seen.increasing ? "yes" : "no");
    seen.calls = 0; seen.last_iteration = 0; seen.stop_after = 2;
    status = perp_solve_lcp("psor", &m, q, 2, NULL, &s, z, w, &rep);
    printf("c89 callback stop: %s: %s\n", perp_status_name(status), rep.message);
    return 0;
}
