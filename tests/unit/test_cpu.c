/*
 * test_cpu.c - cpuinfo parsing on canned texts and the probe on this machine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "pt2_cpu.h"
#include "testutil.h"

/* Sapphire Rapids (Xeon Platinum 8480+), first block of two. */
static const char spr_cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 143\n"
    "model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
    "cpu MHz\t\t: 2000.000\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
    "clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc "
    "art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf "
    "tsc_known_freq pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 "
    "xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx "
    "f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 cat_l2 cdp_l3 "
    "invpcid_single intel_ppin cdp_l2 ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow vnmi "
    "flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm "
    "rdt_a avx512f avx512dq rdseed adx smap avx512ifma clflushopt clwb intel_pt avx512cd "
    "sha_ni avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc "
    "cqm_mbm_total cqm_mbm_local split_lock_detect avx_vnni avx512_bf16 wbnoinvd dtherm ida "
    "arat pln pts hwp hwp_act_window hwp_epp hwp_pkg_req avx512vbmi umip pku ospke waitpkg "
    "avx512_vbmi2 gfni vaes vpclmulqdq avx512_vnni avx512_bitalg tme avx512_vpopcntdq la57 "
    "rdpid bus_lock_detect cldemote movdiri movdir64b enqcmd fsrm md_clear serialize tsxldtrk "
    "pconfig arch_lbr amx_bf16 avx512_fp16 amx_tile amx_int8 flush_l1d arch_capabilities\n"
    "bogomips\t: 4000.00\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: second block must not win\n"
    "flags\t\t: fpu sse2\n"
    "\n";

/* AMD EPYC guest without AVX-512; two blocks. */
static const char epyc_cpuinfo[] =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 25\n"
    "model name\t: AMD EPYC 7B13\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
    "clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc "
    "rep_good nopl xtopology nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq ssse3 "
    "fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor "
    "lahf_lm cmp_legacy cr8_legacy abm sse4a misalignsse 3dnowprefetch osvw topoext "
    "invpcid_single ssbd ibrs ibpb stibp vmmcall fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms "
    "invpcid rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 xsaves clzero "
    "xsaveerptr arat npt nrip_save umip vaes vpclmulqdq rdpid fsrm\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: AuthenticAMD\n"
    "model name\t: AMD EPYC 7B13\n"
    "flags\t\t: fpu sse2 avx512f\n";

/* NVIDIA Grace (Neoverse V2): aarch64 spells features differently and has no model name. */
static const char grace_cpuinfo[] =
    "processor\t: 0\n"
    "BogoMIPS\t: 2000.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
    "asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat "
    "ilrcpc flagm ssbs sb paca pacg dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 "
    "flagm2 frint svei8mm svebf16 i8mm bf16 dgh bti\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x0\n"
    "CPU part\t: 0xd4f\n"
    "CPU revision\t: 0\n"
    "\n";

static const char s390x_cpuinfo[] = "vendor_id       : IBM/S390\n"
                                    "# processors    : 2\n"
                                    "features\t: esan3 zarch stfle msa ldisp eimm dfp edat etf3eh "
                                    "highgprs te vx vxd vxe gs vxe2 vxp sort dflt sie\n"
                                    "processor 0: version = FF,  identification = 0133E8\n";

/* Compare c's features with a space-separated list. */
static void assert_features(const struct pt2_cpu_info *c, const char *want)
{
    char got[4096] = "";
    size_t i, o = 0;

    for (i = 0; i < c->nfeatures; i++)
        o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s", i ? " " : "", c->features[i]);
    ck_assert_str_eq(got, want);
}

static void parse_ok(const char *text, size_t len, struct pt2_cpu_info *c)
{
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(text, len, c, &err), PT2_OK);
    ck_assert_int_eq(err.code, PT2_OK);
}

START_TEST(test_x86_with_avx512_and_amx)
{
    struct pt2_cpu_info c;

    parse_ok(spr_cpuinfo, strlen(spr_cpuinfo), &c);
    ck_assert_str_eq(c.machine, "x86_64");
    ck_assert_str_eq(c.vendor, "GenuineIntel");
    ck_assert_str_eq(c.model, "Intel(R) Xeon(R) Platinum 8480+");
    assert_features(&c, "mmx sse sse2 pni ssse3 sse4_1 sse4_2 popcnt abm cx16 movbe aes "
                        "pclmulqdq sha_ni rdrand rdseed adx xsave avx avx2 fma f16c bmi1 bmi2 "
                        "gfni vaes vpclmulqdq avx_vnni avx512f avx512dq avx512cd avx512bw "
                        "avx512vl avx512ifma avx512vbmi avx512_vbmi2 avx512_vnni avx512_bitalg "
                        "avx512_vpopcntdq avx512_bf16 avx512_fp16 amx_tile amx_bf16 amx_int8");
    ck_assert_str_eq(pt2_cpu_vec_isa(&c), "AVX512");
    ck_assert_int_eq(pt2_cpu_has(&c, "amx_tile"), 1);
    ck_assert_int_eq(pt2_cpu_has(&c, "lm"), 0); /* not in the vocabulary */
}
END_TEST

START_TEST(test_x86_without_avx512)
{
    struct pt2_cpu_info c;

    parse_ok(epyc_cpuinfo, strlen(epyc_cpuinfo), &c);
    ck_assert_str_eq(c.machine, "x86_64");
    ck_assert_str_eq(c.vendor, "AuthenticAMD");
    ck_assert_str_eq(c.model, "AMD EPYC 7B13");
    /* AMD: sse4a, no gfni. */
    assert_features(&c, "mmx sse sse2 pni ssse3 sse4_1 sse4_2 sse4a popcnt abm cx16 movbe aes "
                        "pclmulqdq sha_ni rdrand rdseed adx xsave avx avx2 fma f16c bmi1 bmi2 "
                        "vaes vpclmulqdq");
    ck_assert_int_eq(pt2_cpu_has(&c, "avx512f"), 0); /* only in the second block */
    ck_assert_str_eq(pt2_cpu_vec_isa(&c), "AVX2");
}
END_TEST

START_TEST(test_x86_32bit_and_length_bound)
{
    static const char text[] = "vendor_id : GenuineIntel\nflags : sse2 avx2 fma lm";
    struct pt2_cpu_info c;

    /* The length stops before " lm": no long mode, so a 32-bit CPU. */
    parse_ok(text, strlen(text) - 3, &c);
    ck_assert_str_eq(c.machine, "i686");
    assert_features(&c, "sse2 avx2 fma");
    ck_assert_str_eq(c.model, "");
}
END_TEST

START_TEST(test_aarch64_grace)
{
    struct pt2_cpu_info c;

    parse_ok(grace_cpuinfo, strlen(grace_cpuinfo), &c);
    ck_assert_str_eq(c.machine, "aarch64");
    ck_assert_str_eq(c.vendor, "ARM");
    ck_assert_str_eq(c.model, "Neoverse-V2");
    assert_features(&c, "fp asimd crc32 atomics fphp asimdhp asimddp asimdfhm sve sve2 i8mm bf16 "
                        "svei8mm svebf16");
    ck_assert_str_eq(pt2_cpu_vec_isa(&c), "NEON");
}
END_TEST

START_TEST(test_aarch64_unknown_part)
{
    static const char text[] = "Features\t: fp asimd\nCPU implementer\t: 0x99\nCPU part\t: 0x123\n";
    struct pt2_cpu_info c;

    parse_ok(text, strlen(text), &c);
    ck_assert_str_eq(c.vendor, "implementer 0x99");
    ck_assert_str_eq(c.model, "part 0x123");
    assert_features(&c, "fp asimd");
}
END_TEST

START_TEST(test_s390x_keeps_all_tokens)
{
    struct pt2_cpu_info c;

    parse_ok(s390x_cpuinfo, strlen(s390x_cpuinfo), &c);
    ck_assert_str_eq(c.machine, "s390x");
    ck_assert_str_eq(c.vendor, "IBM/S390");
    assert_features(&c, "esan3 zarch stfle msa ldisp eimm dfp edat etf3eh highgprs te vx vxd vxe "
                        "gs vxe2 vxp sort dflt sie");
    ck_assert_str_eq(pt2_cpu_vec_isa(&c), "ZVECTOR");
}
END_TEST

START_TEST(test_other_arch_caps)
{
    struct pt2_cpu_info c;
    char *text = malloc(8192);
    size_t o, i;

    ck_assert_ptr_nonnull(text);
    /* 32-bit ARM (no asimd): every token is kept, up to the cap, no duplicates. */
    o = (size_t)snprintf(text, 8192,
                         "Processor : ARMv7 rev 4 (v7l)\nFeatures : "
                         "half thumb half averyveryverylongfeaturename24");
    for (i = 0; i < 200; i++)
        o += (size_t)snprintf(text + o, 8192 - o, " f%zu", i);
    snprintf(text + o, 8192 - o, "\n");
    parse_ok(text, strlen(text), &c);
    ck_assert_str_eq(c.machine, "arm");
    ck_assert_str_eq(c.model, "ARMv7 rev 4 (v7l)");
    ck_assert_uint_eq(c.nfeatures, PT2_CPU_FEATURES_MAX);
    ck_assert_str_eq(c.features[0], "half");
    ck_assert_str_eq(c.features[1], "thumb");
    ck_assert_str_eq(c.features[2], "f0");
    ck_assert_str_eq(c.features[PT2_CPU_FEATURES_MAX - 1], "f125");
    free(text);
}
END_TEST

START_TEST(test_long_model_and_control_chars)
{
    struct pt2_cpu_info c;
    char text[512];
    char want[128];

    snprintf(text, sizeof(text), "vendor_id : Genuine\x01Intel\nmodel name : %0200d\n", 7);
    parse_ok(text, strlen(text), &c);
    ck_assert_str_eq(c.vendor, "Genuine?Intel");
    memset(want, '0', sizeof(want) - 1); /* cut to 127 bytes */
    want[sizeof(want) - 1] = '\0';
    ck_assert_str_eq(c.model, want);
    ck_assert_str_eq(c.machine, "");
    ck_assert_uint_eq(c.nfeatures, 0);
}
END_TEST

START_TEST(test_malformed_inputs)
{
    struct pt2_cpu_info c;
    struct pt2_error err = {0};
    static const char junk[] = "hello world\nno colon here\n\n";

    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(junk, strlen(junk), &c, &err), PT2_ERR_FORMAT);
    ck_assert_str_eq(err.message, "cpuinfo: no vendor_id, model name, flags or Features line");

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo("", 0, &c, &err), PT2_ERR_FORMAT);
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(NULL, 0, &c, &err), PT2_ERR_FORMAT);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(NULL, 5, &c, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "pt2_cpu_parse_cpuinfo: missing argument");
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(junk, 3, NULL, &err), PT2_ERR_INVALID);

    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(junk, PT2_CPUINFO_MAX + 1u, &c, &err),
                     PT2_ERR_TOO_LARGE);
    ck_assert_str_eq(err.message, "cpuinfo text is 4194305 bytes, more than 4194304");

    /* Only a key and a colon at the very end. */
    pt2_error_clear(&err);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo("flags:", 6, &c, &err), PT2_OK);
    ck_assert_str_eq(c.machine, "i686");
    ck_assert_uint_eq(c.nfeatures, 0);
}
END_TEST

/*
 * The last line without a newline, in a heap block of exactly its length
 * (ASan would see a read past it). The walk stops at the end instead of
 * stepping a pointer beyond it, which was undefined behaviour.
 */
START_TEST(test_last_line_without_newline)
{
    static const char text[] = "vendor_id\t: GenuineIntel\nmodel name\t: Some CPU\n"
                               "flags\t\t: fpu lm sse2 avx2 fma";
    struct pt2_cpu_info c;
    struct pt2_error err = {0};
    size_t len = sizeof(text) - 1, cut;
    char *buf = malloc(len);

    ck_assert_ptr_nonnull(buf);
    memcpy(buf, text, len);
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(buf, len, &c, &err), PT2_OK);
    ck_assert_str_eq(c.machine, "x86_64");
    ck_assert_str_eq(c.vendor, "GenuineIntel");
    ck_assert_uint_eq(c.nfeatures, 3);
    ck_assert_str_eq(c.features[0], "sse2");
    ck_assert_str_eq(c.features[1], "avx2");
    ck_assert_str_eq(c.features[2], "fma"); /* the last token, right at the end */
    /* every shorter prefix too, each in its own exact-size block */
    for (cut = 1; cut < len; cut++) {
        char *b = malloc(cut);

        ck_assert_ptr_nonnull(b);
        memcpy(b, text, cut);
        pt2_error_clear(&err);
        (void)pt2_cpu_parse_cpuinfo(b, cut, &c, &err);
        free(b);
    }
    free(buf);
}
END_TEST

START_TEST(test_random_bytes_do_not_crash)
{
    static const char alphabet[] = "flags:Features vendor_idmodel name\n\t :0x41CPU part";
    unsigned seed = 12345;
    char buf[600];
    struct pt2_cpu_info c;
    struct pt2_error err;
    int iter, rc;
    size_t i, len;

    for (iter = 0; iter < 2000; iter++) {
        seed = seed * 1103515245u + 12345u;
        len = (seed >> 8) % sizeof(buf);
        for (i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (seed >> 24) & 1 ? alphabet[(seed >> 8) % (sizeof(alphabet) - 1)]
                                      : (char)(seed >> 16);
        }
        pt2_error_clear(&err);
        rc = pt2_cpu_parse_cpuinfo(buf, len, &c, &err);
        ck_assert(rc == PT2_OK || rc == PT2_ERR_FORMAT);
        ck_assert_uint_le(c.nfeatures, PT2_CPU_FEATURES_MAX);
        ck_assert_uint_lt(strlen(c.model), sizeof(c.model));
    }
}
END_TEST

START_TEST(test_json_shape)
{
    struct pt2_cpu_info c;
    struct pt2_error err = {0};
    cJSON *doc = NULL;
    char *text;

    parse_ok(grace_cpuinfo, strlen(grace_cpuinfo), &c);
    ck_assert_int_eq(pt2_cpu_to_json(&c, &doc, &err), PT2_OK);
    text = cJSON_PrintUnformatted(doc);
    ck_assert_str_eq(text, "{\"machine\":\"aarch64\",\"vendor\":\"ARM\",\"model\":\"Neoverse-V2\","
                           "\"features\":[\"fp\",\"asimd\",\"crc32\",\"atomics\",\"fphp\","
                           "\"asimdhp\",\"asimddp\",\"asimdfhm\",\"sve\",\"sve2\",\"i8mm\","
                           "\"bf16\",\"svei8mm\",\"svebf16\"],\"vec_isa\":\"NEON\"}");
    free(text);
    cJSON_Delete(doc);

    memset(&c, 0, sizeof(c));
    ck_assert_int_eq(pt2_cpu_to_json(&c, &doc, &err), PT2_OK);
    text = cJSON_PrintUnformatted(doc);
    ck_assert_str_eq(text, "{\"machine\":null,\"vendor\":null,\"model\":null,\"features\":[],"
                           "\"vec_isa\":null}");
    free(text);
    cJSON_Delete(doc);

    ck_assert_int_eq(pt2_cpu_to_json(NULL, &doc, &err), PT2_ERR_INVALID);
    ck_assert_ptr_null(doc);
}
END_TEST

/* /proc files report size 0, so tu_read_file() cannot read them. */
static char *read_proc(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    char *buf = malloc(1 << 20);
    size_t n;

    *len = 0;
    if (f == NULL || buf == NULL) {
        if (f != NULL)
            fclose(f);
        free(buf);
        return NULL;
    }
    while (*len < (1 << 20) && (n = fread(buf + *len, 1, (1 << 20) - *len, f)) > 0)
        *len += n;
    fclose(f);
    return buf;
}

START_TEST(test_probe_this_machine)
{
    struct pt2_cpu_info c, text;
    struct pt2_error err = {0};
    struct utsname u;
    char *raw;
    size_t len = 0, i;

    ck_assert_int_eq(pt2_cpu_probe(&c, &err), PT2_OK);
    ck_assert_int_eq(uname(&u), 0);
    ck_assert_str_eq(c.machine, u.machine);
    ck_assert_uint_le(c.nfeatures, PT2_CPU_FEATURES_MAX);
    if (strcmp(u.machine, "x86_64") != 0) {
        tu_skip("test_probe_this_machine", "feature checks need x86_64");
        return;
    }
    ck_assert_uint_gt(c.nfeatures, 0);
    ck_assert_int_eq(pt2_cpu_has(&c, "sse2"), 1); /* baseline of x86-64 */
    ck_assert_uint_gt(strlen(c.vendor), 0);
    ck_assert_uint_gt(strlen(c.model), 0);
    /* Features every kernel names must agree between cpuid and /proc/cpuinfo. */
    raw = read_proc("/proc/cpuinfo", &len);
    if (raw == NULL)
        return;
    ck_assert_int_eq(pt2_cpu_parse_cpuinfo(raw, len, &text, &err), PT2_OK);
    for (i = 0; i < text.nfeatures; i++) {
        if (strncmp(text.features[i], "avx512", 6) == 0 ||
            strncmp(text.features[i], "amx", 3) == 0 || strcmp(text.features[i], "avx_vnni") == 0)
            continue; /* newer names an old kernel may not know, or a VM may mask */
        ck_assert_msg(pt2_cpu_has(&c, text.features[i]), "cpuinfo has %s, cpuid does not",
                      text.features[i]);
    }
    free(raw);
}
END_TEST

START_TEST(test_probe_invalid)
{
    struct pt2_error err = {0};

    ck_assert_int_eq(pt2_cpu_probe(NULL, &err), PT2_ERR_INVALID);
    ck_assert_str_eq(err.message, "pt2_cpu_probe: no output");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpu");
    TCase *parse = tcase_create("parse");
    TCase *probe = tcase_create("probe");

    tcase_add_test(parse, test_x86_with_avx512_and_amx);
    tcase_add_test(parse, test_x86_without_avx512);
    tcase_add_test(parse, test_x86_32bit_and_length_bound);
    tcase_add_test(parse, test_aarch64_grace);
    tcase_add_test(parse, test_aarch64_unknown_part);
    tcase_add_test(parse, test_s390x_keeps_all_tokens);
    tcase_add_test(parse, test_other_arch_caps);
    tcase_add_test(parse, test_long_model_and_control_chars);
    tcase_add_test(parse, test_malformed_inputs);
    tcase_add_test(parse, test_last_line_without_newline);
    tcase_add_test(parse, test_random_bytes_do_not_crash);
    tcase_add_test(parse, test_json_shape);
    tcase_add_test(probe, test_probe_this_machine);
    tcase_add_test(probe, test_probe_invalid);
    suite_add_tcase(s, parse);
    suite_add_tcase(s, probe);
    return tu_run_suite(s);
}
