/*
 * test_amdkfd.c - gfx names from gfx_target_version and the KFD topology
 * probe over stand-in sysfs trees (tests/fixtures/sysfs and temporary ones).
 */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt2_amdkfd.h"
#include "testutil.h"

#define MI250 "tests/fixtures/sysfs/mi250x2"

START_TEST(test_gfx_names)
{
    static const struct {
        unsigned v;
        const char *gfx;
    } cases[] = {{90010, "gfx90a"},   {90402, "gfx942"}, {90400, "gfx940"},   {110000, "gfx1100"},
                 {100300, "gfx1030"}, {90008, "gfx908"}, {120001, "gfx1201"}, {90012, "gfx90c"}};
    char buf[16];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_int_eq(pt2_amdkfd_gfx_name(cases[i].v, buf, sizeof(buf), NULL), PT2_OK);
        ck_assert_str_eq(buf, cases[i].gfx);
    }
    ck_assert_int_eq(pt2_amdkfd_gfx_name(0, buf, sizeof(buf), NULL), PT2_ERR_INVALID);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(pt2_amdkfd_gfx_name(91600, buf, sizeof(buf), NULL), PT2_ERR_INVALID);
    ck_assert_int_eq(pt2_amdkfd_gfx_name(90016, buf, sizeof(buf), NULL), PT2_ERR_INVALID);
}
END_TEST

START_TEST(test_probe_mi250)
{
    struct pt2_amd_gpus *g = calloc(1, sizeof(*g));
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_amdkfd_probe(MI250, g, &err), PT2_OK);
    ck_assert_uint_eq(g->n, 2);
    ck_assert_str_eq(g->reason, "");
    ck_assert_str_eq(g->topology, MI250 "/class/kfd/kfd/topology/nodes");
    ck_assert_int_eq(g->gpus[0].index, 0);
    ck_assert_int_eq(g->gpus[0].kfd_node, 1);
    ck_assert_str_eq(g->gpus[0].gfx, "gfx90a");
    ck_assert_uint_eq(g->gpus[0].gfx_target_version, 90010);
    ck_assert_str_eq(g->gpus[0].name, "AMD Instinct MI210/MI250/MI250X (CDNA2)");
    ck_assert_uint_eq(g->gpus[0].vendor_id, 4098);
    ck_assert_uint_eq(g->gpus[0].device_id, 29704);
    ck_assert_str_eq(g->gpus[0].pci_bus_id, "0000:c1:00.0");
    ck_assert_uint_eq(g->gpus[0].compute_units, 110);
    ck_assert_uint_eq(g->gpus[0].unique_id, 1234567891);
    ck_assert_int_eq(g->gpus[1].index, 1);
    ck_assert_int_eq(g->gpus[1].kfd_node, 2);
    ck_assert_str_eq(g->gpus[1].pci_bus_id, "0000:c6:00.0");
    free(g);
}
END_TEST

START_TEST(test_probe_absent_and_env)
{
    struct pt2_amd_gpus *g = calloc(1, sizeof(*g));

    ck_assert_int_eq(pt2_amdkfd_probe("/nonexistent/pt2scope", g, NULL), PT2_OK);
    ck_assert_uint_eq(g->n, 0);
    ck_assert_str_eq(g->reason, "no AMD GPU driver (amdgpu/KFD): "
                                "/nonexistent/pt2scope/class/kfd/kfd/topology/nodes is absent");
    /* NULL root: $PT2SCOPE_SYSFS_ROOT. */
    setenv(PT2_SYSFS_ROOT_ENV, MI250, 1);
    ck_assert_int_eq(pt2_amdkfd_probe(NULL, g, NULL), PT2_OK);
    ck_assert_uint_eq(g->n, 2);
    unsetenv(PT2_SYSFS_ROOT_ENV);
    ck_assert_int_eq(pt2_amdkfd_probe(NULL, NULL, NULL), PT2_ERR_INVALID);
    free(g);
}
END_TEST

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void put(const char *dir, const char *name, const char *text, size_t len)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Junk a stand-in (or broken) sysfs may hold: none of it is a GPU, none of it fails. */
START_TEST(test_probe_hostile)
{
    char root[] = "/tmp/pt2scope-kfd-XXXXXX", dir[512], *big;
    struct pt2_amd_gpus *g = calloc(1, sizeof(*g));
    const char *names[] = {"0", "1", "2", "3", "x9", "4"};
    size_t i;

    ck_assert_ptr_nonnull(mkdtemp(root));
    snprintf(dir, sizeof(dir), "%s/class", root);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/class/kfd", root);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/class/kfd/kfd", root);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/class/kfd/kfd/topology", root);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/class/kfd/kfd/topology/nodes", root);
    mkdir(dir, 0700);
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char node[600];
        snprintf(node, sizeof(node), "%s/%s", dir, names[i]);
        mkdir(node, 0700);
    }
    /* 0: a GPU line past the 64 KiB cap is never read. */
    big = malloc(PT2_AMDKFD_PROPS_MAX + 64);
    memset(big, 'x', PT2_AMDKFD_PROPS_MAX + 64);
    big[100] = '\n';
    memcpy(big + PT2_AMDKFD_PROPS_MAX, "\nsimd_count 4\ngfx_target_version 90010\n", 40);
    {
        char n0[600];
        snprintf(n0, sizeof(n0), "%s/0", dir);
        put(n0, "properties", big, PT2_AMDKFD_PROPS_MAX + 44);
        snprintf(n0, sizeof(n0), "%s/1", dir); /* junk numbers */
        put(n0, "properties", "simd_count -4\ngfx_target_version 9x\n",
            strlen("simd_count -4\ngfx_target_version 9x\n"));
        snprintf(n0, sizeof(n0), "%s/2", dir); /* impossible version */
        put(n0, "properties", "simd_count 4\ngfx_target_version 91600\n",
            strlen("simd_count 4\ngfx_target_version 91600\n"));
        snprintf(n0, sizeof(n0), "%s/3", dir); /* a prefix of the key is not the key */
        put(n0, "properties", "simd_count 4\ngfx_target_version_x 90010\n",
            strlen("simd_count 4\ngfx_target_version_x 90010\n"));
        snprintf(n0, sizeof(n0), "%s/x9", dir); /* not a node number */
        put(n0, "properties", "simd_count 4\ngfx_target_version 90010\n",
            strlen("simd_count 4\ngfx_target_version 90010\n"));
        snprintf(n0, sizeof(n0), "%s/4", dir); /* the one GPU, without optional keys */
        put(n0, "properties", "simd_count 8\ngfx_target_version 110000",
            strlen("simd_count 8\ngfx_target_version 110000"));
    }
    ck_assert_int_eq(pt2_amdkfd_probe(root, g, NULL), PT2_OK);
    ck_assert_uint_eq(g->n, 1);
    ck_assert_str_eq(g->gpus[0].gfx, "gfx1100");
    ck_assert_int_eq(g->gpus[0].kfd_node, 4);
    ck_assert_str_eq(g->gpus[0].pci_bus_id, "");
    ck_assert_uint_eq(g->gpus[0].compute_units, 0);
    free(big);
    free(g);
    ck_assert_int_eq(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("amdkfd");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_gfx_names);
    tcase_add_test(tc, test_probe_mi250);
    tcase_add_test(tc, test_probe_absent_and_env);
    tcase_add_test(tc, test_probe_hostile);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(suite());
}
