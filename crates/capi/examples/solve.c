/* Solves an LCP, a box-LCP, an MLCP and frictional contact problems with libperp (see
   docs/c.md). */
#include <stdio.h>
#include "perp.h"

int main(void) {
    /* LCP 0 <= z _|_ Mz + q >= 0 with M = [2 1; 1 2], stored column by column. */
    double M[] = {2, 1, 1, 2}, q[] = {-5, -6}, z[2], w[2];
    PerpMatrix m = perp_matrix_dense(2, 2, M);
    PerpReport rep;
    perp_solve_lcp("lemke", &m, q, 2, NULL, NULL, z, w, &rep);
    printf("lcp: %s, z = %.6f %.6f\n", perp_status_name(rep.status), z[0], z[1]);

    /* The box-LCP 0 <= z <= (1, 10) of the same M and q: z0 stops at its bound (w0 < 0). */
    double lo[] = {0, 0}, hi[] = {1, 10};
    perp_solve_box_lcp(NULL, &m, q, 2, lo, hi, NULL, NULL, z, w, &rep);
    printf("box-lcp: %s, z = %.6f %.6f, w0 = %.6f\n", perp_status_name(rep.status), z[0], z[1], w[0]);

    /* An MLCP in Siconos' layout, M = [A C; D B] with n_eq = 1 equation first:
       2u + v - 4 = 0 (u free), 0 <= v _|_ -u + 2v - 1 >= 0; so u = 1.4, v = 1.2. */
    double Mm[] = {2, -1, 1, 2}, qm[] = {-4, -1};
    PerpMatrix mm = perp_matrix_dense(2, 2, Mm);
    perp_solve_mlcp(NULL, &mm, qm, 2, 1, NULL, NULL, z, w, &rep);
    printf("mlcp: %s, u = %.6f, v = %.6f, physical error below 1e-6: %s\n", perp_status_name(rep.status),
           z[0], z[1], rep.physical_error < 1e-6 ? "yes" : "no");

    /* One 3-D Coulomb contact (normal first), W = identity in CSR, mu = 0.3. */
    size_t row_ptr[] = {0, 1, 2, 3}, col_idx[] = {0, 1, 2};
    double W[] = {1, 1, 1}, qc[] = {-1, 0.5, 0}, mu[] = {0.3}, r[3], u[3];
    PerpMatrix wm = perp_matrix_csr(3, 3, 3, row_ptr, col_idx, W);
    PerpSettings s = perp_settings_default();
    s.tol = 1e-12;
    perp_solve_friction("nsgs", 3, &wm, qc, mu, 1, NULL, &s, r, u, &rep);
    printf("friction: %s, r = %.6f %.6f %.6f\n", perp_status_name(rep.status), r[0], r[1], r[2]);

    /* Rolling resistance: one 3-D contact of dimension 5 (normal, two tangential, two rolling),
       W = identity, mu = 0.8, mu_r = 0.1; the rolling velocity 2 slides, r_R = -mu_r r_N. */
    double W5[25] = {0}, q5[] = {-1, 0.3, 0, 0, 2}, mu5[] = {0.8}, mu_r[] = {0.1}, r5[5], u5[5];
    for (int i = 0; i < 5; i++) W5[6 * i] = 1;
    PerpMatrix w5 = perp_matrix_dense(5, 5, W5);
    PerpCone rolling = perp_cone_rolling(mu_r);
    perp_solve_friction_cone("nsgs", &rolling, 5, &w5, q5, mu5, 1, NULL, &s, r5, u5, &rep);
    printf("rolling: %s, r_N = %.6f, r_T1 = %.6f, r_R2 = %.6f, u_R2 = %.6f\n", perp_status_name(rep.status),
           r5[0], r5[1], r5[4], u5[4]);

    /* The same law in global form, W never formed: a particle of mass 2 (M) on a plane, H's
       columns its normal e_z and tangents e_x, e_y, sliding from (3, 0, -1) with mu = 0.5. */
    double Mg[] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, H[] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
    double f[] = {6, 0, -2}, b[] = {0, 0, 0}, mug[] = {0.5}, rg[3], vg[3], ug[3];
    PerpMatrix mg = perp_matrix_dense(3, 3, Mg), hg = perp_matrix_dense(3, 3, H);
    perp_solve_global(NULL, 3, &mg, &hg, f, b, mug, 1, NULL, &s, rg, vg, ug, &rep);
    printf("global: %s, r_N = %.6f, r_T = %.6f, v_x = %.6f\n", perp_status_name(rep.status), rg[0], rg[1],
           vg[0]);

    /* A simulator's loop: a solver kept across calls prepares its structure once; each step
       brings new values of the same shape and starts from the last answer (warm = r). */
    PerpSolver *sv = perp_solver_new(PERP_FAMILY_FRICTION, "nsgs", &s);
    for (int step = 0; step < 3; step++) {
        qc[0] = -1.0 - step;
        perp_solver_friction(sv, 3, &wm, qc, mu, 1, r, r, u, &rep);
    }
    perp_solver_free(sv);
    printf("kept solver: %s, r_N = %.6f, r_T = %.6f\n", perp_status_name(rep.status), r[0], r[1]);

    /* Bad input is refused with a negative status and a message, also in the report. */
    if (perp_solve_mlcp("lemke", &mm, qm, 2, 1, NULL, NULL, z, w, &rep) < 0)
        printf("refused: %s\n", rep.message);
    char msg[256];
    if (perp_solve_lcp("no-such-solver", &m, q, 2, NULL, NULL, z, w, NULL) < 0) {
        perp_last_error_message(msg, sizeof msg);
        printf("refused: %s\n", msg);
    }
    return 0;
}
