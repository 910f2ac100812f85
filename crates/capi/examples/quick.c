/* An LCP and a frictional contact with libperp (README.md, "From C"; every call: docs/c.md). */
#include <stdio.h>
#include "perp.h"

int main(void) {
    /* LCP 0 <= z _|_ Mz + q >= 0 with M = [2 1; 1 2], stored column by column. */
    double M[] = {2, 1, 1, 2}, q[] = {-5, -6}, z[2], w[2];
    PerpMatrix m = perp_matrix_dense(2, 2, M);
    PerpReport rep;
    perp_solve_lcp("lemke", &m, q, 2, NULL, NULL, z, w, &rep);
    printf("lcp: %s, z = %.6f %.6f\n", perp_status_name(rep.status), z[0], z[1]);

    /* One 3-D Coulomb contact (normal first), W = identity, mu = 0.3: it slides. */
    double W[] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, qc[] = {-1, 0.5, 0}, mu[] = {0.3}, r[3], u[3];
    PerpMatrix wm = perp_matrix_dense(3, 3, W);
    PerpSettings s = perp_settings_default();
    s.tol = 1e-12;
    if (perp_solve_friction("nsgs", 3, &wm, qc, mu, 1, NULL, &s, r, u, &rep) < 0) {
        printf("refused: %s\n", rep.message);
        return 1;
    }
    printf("friction: %s, r = %.6f %.6f %.6f\n", perp_status_name(rep.status), r[0], r[1], r[2]);
    return 0;
}
