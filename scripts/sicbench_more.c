/* sicbench_more: Siconos numerics' rolling and global frictional contact solvers, timed one
 * solve at a time, for scripts/vs_siconos.py. The companion of ../shared/peers/siconos/sicbench.c
 * (same command line, same one-line JSON output) for the kinds that one lacks:
 *
 *   sicbench_more KIND FILE SOLVER TOL MAX_ITER REPEATS
 *     rfc3d   local rolling (RollingFrictionContactProblem, rolling_friction_3d_driver)
 *     grfc3d  global rolling (GlobalRollingFrictionContactProblem, global_rolling_friction_3d_driver)
 *     gfc3d   global Coulomb (GlobalFrictionContactProblem, gfc3d_driver)
 *   SOLVER is a solver id, then optionally :INTERNAL (the id of the first internal solver, e.g.
 *   3000:3002 for NSGS with the one-contact projection with local iterations) and ,iK=V / ,dK=V
 *   (set iparam[K] / dparam[K] after the defaults, e.g. 5001,i17=1 for the global rolling IPM
 *   on the non-convex problem, SICONOS_FRICTION_3D_IPM_IPARAM_UPDATE_S = 17).
 *   sicbench_more check-KIND FILE ANSWER
 *     Siconos' error measure of an answer read from ANSWER (whitespace-separated numbers: the
 *     reactions r, then for a global kind the global velocities v; for grfc3d r alone is taken
 *     too, v = M⁻¹ (f + H r) then computed by Siconos), to compare with another solver's own
 *     measure: rolling_friction_3d_compute_error (norm ‖q‖),
 *     global_rolling_friction_3d_compute_error (non-convex form), gfc3d_compute_error.
 *
 * A solve prints {"kind","n","solver","info","iter","err","cerr","min","med"}: info (0 =
 * converged), the iterations done, err = the solver's own final error (SICONOS_DPARAM_RESIDU),
 * cerr = the kind's error measure above recomputed from the returned r (rfc3d) or (r, v) (global,
 * u = Hᵀ v + b), and the min and median seconds of the solve alone over REPEATS solves from a
 * zero start. A global problem is
 * read afresh before each solve (outside the timer), since some global solvers keep work in the
 * problem (M's inverse, balancing); a local one is read once, as sicbench does. Build it with
 * scripts/build_sicbench_more.sh against build.sh's build directory.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include "NonSmoothDrivers.h"
#include "SolverOptions.h"
#include "NumericsMatrix.h"
#include "SiconosBlas.h"
#include "FrictionContact_options.h"
#include "GlobalFrictionContactProblem.h"
#include "gfc3d_compute_error.h"
#include "RollingFrictionContactProblem.h"
#include "GlobalRollingFrictionContactProblem.h"
#include "RollingFrictionContact_options.h"
#include "rolling_friction_3d_compute_error.h"
#include "global_rolling_friction_3d_compute_error.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static void *need(void *p, const char *what) {
  if (!p) {
    fprintf(stderr, "sicbench_more: cannot read %s\n", what);
    exit(3);
  }
  return p;
}

/* ANSWER: up to `len` whitespace-separated numbers; *count says how many were read. */
static double *read_answer(const char *path, int len, int *count) {
  FILE *f = need(fopen(path, "r"), path);
  double *x = calloc(len > 0 ? len : 1, sizeof(double));
  int i = 0;
  while (i < len && fscanf(f, "%lf", &x[i]) == 1) i++;
  fclose(f);
  *count = i;
  return x;
}
static void expect_count(const char *path, int found, int a, int b) {
  if (found != a && found != b) {
    fprintf(stderr, "sicbench_more: %s: expected %d or %d numbers, found %d\n", path, a, b, found);
    exit(3);
  }
}

static double rfc3d_error(RollingFrictionContactProblem *p, double *r, double *u, double tol) {
  int m = p->dimension * p->numberOfContacts;
  double e = 0;
  rolling_friction_3d_compute_error(p, r, u, tol, NULL, cblas_dnrm2(m, p->q, 1), &e);
  return e;
}
static double grfc3d_error(GlobalRollingFrictionContactProblem *p, double *r, double *u, double *v,
                           double tol) {
  double e = 0;
  global_rolling_friction_3d_compute_error(p, r, u, v, tol, &e, 1);
  return e;
}
static double gfc3d_error(GlobalFrictionContactProblem *p, double *r, double *u, double *v,
                          double tol, SolverOptions *o) {
  int m = p->dimension * p->numberOfContacts, n = p->M->size0;
  double e = 0;
  gfc3d_compute_error(p, r, u, v, tol, o, cblas_dnrm2(n, p->q, 1), cblas_dnrm2(m, p->b, 1), &e);
  return e;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strncmp(argv[1], "check-", 6)) {
    const char *kind = argv[1] + 6, *file = argv[2];
    double e = NAN;
    int m = 0;
    int found = 0;
    if (!strcmp(kind, "rfc3d")) {
      RollingFrictionContactProblem *p = need(rollingFrictionContact_new_from_filename(file), file);
      m = p->dimension * p->numberOfContacts;
      double *r = read_answer(argv[3], m, &found), *u = calloc(m, sizeof(double));
      expect_count(argv[3], found, m, m);
      e = rfc3d_error(p, r, u, 0);
    } else if (!strcmp(kind, "grfc3d")) {
      GlobalRollingFrictionContactProblem *p =
          need(globalRollingFrictionContact_new_from_filename(file), file);
      m = p->dimension * p->numberOfContacts;
      int n = p->M->size0;
      double *x = read_answer(argv[3], m + n, &found), *u = calloc(m, sizeof(double));
      expect_count(argv[3], found, m, m + n);
      if (found == m) { /* r alone: v = M⁻¹ (f + H r) by Siconos, on a copy of the problem */
        GlobalRollingFrictionContactProblem *c =
            need(globalRollingFrictionContact_new_from_filename(file), file);
        globalRollingFrictionContact_computeGlobalVelocity(c, x, x + m);
      }
      /* global_rolling_friction_3d_compute_error takes u as given: u = Hᵀ v + b */
      cblas_dcopy(m, p->b, 1, u, 1);
      NM_tgemv(1.0, p->H, x + m, 1.0, u);
      e = grfc3d_error(p, x, u, x + m, 0);
    } else if (!strcmp(kind, "gfc3d")) {
      GlobalFrictionContactProblem *p = need(globalFrictionContact_new_from_filename(file), file);
      m = p->dimension * p->numberOfContacts;
      int n = p->M->size0;
      double *x = read_answer(argv[3], m + n, &found), *u = calloc(m, sizeof(double));
      expect_count(argv[3], found, m + n, m + n);
      SolverOptions *o = solver_options_create(SICONOS_GLOBAL_FRICTION_3D_NSN_AC);
      e = gfc3d_error(p, x, u, x + m, 0, o);
    } else {
      fprintf(stderr, "sicbench_more: unknown kind %s (rfc3d, grfc3d, gfc3d)\n", kind);
      return 2;
    }
    printf("{\"kind\":\"check-%s\",\"n\":%d,\"err\":%.6e}\n", kind, m, e);
    return 0;
  }
  if (argc < 7) {
    fprintf(stderr,
            "usage: sicbench_more rfc3d|grfc3d|gfc3d FILE SOLVER[:INTERNAL] TOL MAX_ITER REPEATS\n"
            "       sicbench_more check-rfc3d|check-grfc3d|check-gfc3d FILE ANSWER\n");
    return 2;
  }
  const char *kind = argv[1], *file = argv[2];
  int sid = atoi(argv[3]);
  const char *colon = strchr(argv[3], ':'), *comma = strchr(argv[3], ',');
  int internal = colon && (!comma || colon < comma) ? atoi(colon + 1) : 0;
  double tol = atof(argv[4]);
  int maxit = atoi(argv[5]), reps = atoi(argv[6]);
  if (reps < 1) reps = 1;
  double *ts = malloc(sizeof(double) * reps);
  int it = 0, info = 0, m = 0;
  double err = 0, cerr = NAN;
  RollingFrictionContactProblem *rp = NULL;
  if (!strcmp(kind, "rfc3d")) {
    rp = need(rollingFrictionContact_new_from_filename(file), file);
    m = rp->dimension * rp->numberOfContacts;
  }
  if (strcmp(kind, "rfc3d") && strcmp(kind, "grfc3d") && strcmp(kind, "gfc3d")) {
    fprintf(stderr, "sicbench_more: unknown kind %s (rfc3d, grfc3d, gfc3d)\n", kind);
    return 2;
  }
  /* Some solvers (the IPMs) print a table per solve on stdout: send it to /dev/null so that the
   * JSON line is the output (the printing itself stays inside the timed solve). */
  fflush(stdout);
  int out = dup(1), devnull = open("/dev/null", O_WRONLY);
  if (out >= 0 && devnull >= 0) dup2(devnull, 1);
  for (int k = 0; k < reps; k++) {
    SolverOptions *o = solver_options_create(sid);
    if (!o) {
      fprintf(stderr, "sicbench_more: unknown solver id %d\n", sid);
      return 2;
    }
    if (internal) solver_options_update_internal(o, 0, internal);
    for (const char *c = comma; c; c = strchr(c + 1, ',')) {
      char t;
      int key;
      double val;
      if (sscanf(c + 1, "%c%d=%lf", &t, &key, &val) != 3 || (t != 'i' && t != 'd') || key < 0 ||
          key >= (t == 'i' ? o->iSize : o->dSize)) {
        fprintf(stderr, "sicbench_more: bad parameter '%s' (iK=V or dK=V)\n", c + 1);
        return 2;
      }
      if (t == 'i')
        o->iparam[key] = (int)val;
      else
        o->dparam[key] = val;
    }
    o->dparam[SICONOS_DPARAM_TOL] = tol;
    if (maxit > 0) o->iparam[SICONOS_IPARAM_MAX_ITER] = maxit;
    if (rp) {
      double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double));
      double t0 = now();
      info = rolling_friction_3d_driver(rp, r, u, o);
      ts[k] = now() - t0;
      cerr = rfc3d_error(rp, r, u, tol);
      free(r), free(u);
    } else if (!strcmp(kind, "grfc3d")) {
      GlobalRollingFrictionContactProblem *p =
          need(globalRollingFrictionContact_new_from_filename(file), file);
      m = p->dimension * p->numberOfContacts;
      int n = p->M->size0;
      double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double)),
             *v = calloc(n, sizeof(double));
      double t0 = now();
      info = global_rolling_friction_3d_driver(p, r, u, v, o);
      ts[k] = now() - t0;
      GlobalRollingFrictionContactProblem *q =
          need(globalRollingFrictionContact_new_from_filename(file), file);
      cblas_dcopy(m, q->b, 1, u, 1); /* the measure takes u as given: u = Hᵀ v + b */
      NM_tgemv(1.0, q->H, v, 1.0, u);
      cerr = grfc3d_error(q, r, u, v, tol);
      globalRollingFrictionContactProblem_free(q);
      globalRollingFrictionContactProblem_free(p);
      free(r), free(u), free(v);
    } else {
      GlobalFrictionContactProblem *p = need(globalFrictionContact_new_from_filename(file), file);
      m = p->dimension * p->numberOfContacts;
      int n = p->M->size0;
      double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double)),
             *v = calloc(n, sizeof(double));
      double t0 = now();
      info = gfc3d_driver(p, r, u, v, o);
      ts[k] = now() - t0;
      GlobalFrictionContactProblem *q = need(globalFrictionContact_new_from_filename(file), file);
      SolverOptions *oc = solver_options_create(SICONOS_GLOBAL_FRICTION_3D_NSN_AC);
      cerr = gfc3d_error(q, r, u, v, tol, oc);
      solver_options_delete(oc);
      globalFrictionContact_free(q);
      globalFrictionContact_free(p);
      free(r), free(u), free(v);
    }
    it = o->iparam[SICONOS_IPARAM_ITER_DONE];
    err = o->dparam[SICONOS_DPARAM_RESIDU];
    solver_options_delete(o);
  }
  fflush(stdout);
  if (out >= 0) dup2(out, 1);
  qsort(ts, reps, sizeof(double), cmpd);
  printf("{\"kind\":\"%s\",\"n\":%d,\"solver\":\"%s\",\"info\":%d,\"iter\":%d,\"err\":%.3e,"
         "\"cerr\":%.3e,\"min\":%.6e,\"med\":%.6e}\n",
         kind, m, argv[3], info, it, err, cerr, ts[0], ts[reps / 2]);
  return 0;
}
