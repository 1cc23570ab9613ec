/*
 * pt2d_docs_assets.S - link the API documents into pt2scoped (see pt2d_docs.h).
 *
 * The Makefile copies or renders each file into $(BUILD)/openapi/ and passes
 * that directory to the assembler (-Wa,-I...), so .incbin finds it there and
 * make knows every input. The blobs are laid out by pt2d_blob.inc.
 *
 * Built with -DPT2D_DOCS_YAML_ONLY (no npm on the build machine), only the
 * YAML is linked: the npm-made blobs are empty and pt2d_docs_complete is 0,
 * so the daemon can say how to build them instead of serving nothing.
 */
#include "pt2d_blob.inc"

        .macro pt2d_docs_empty name
        .section .rodata.pt2d_docs, "a", %progbits
        .globl \name
        .type \name, %object
\name:
        .byte 0
        .size \name, 1
        .balign 8
        .globl \name\()_len
        .type \name\()_len, %object
\name\()_len:
        .dc.a 0
        .size \name\()_len, . - \name\()_len
        .endm

        pt2d_blob .rodata.pt2d_docs, pt2d_docs_openapi_yaml, "openapi.yaml"
#ifdef PT2D_DOCS_YAML_ONLY
        pt2d_docs_empty pt2d_docs_openapi_json
        pt2d_docs_empty pt2d_docs_swagger_js
        pt2d_docs_empty pt2d_docs_swagger_css
#define PT2D_DOCS_COMPLETE 0
#else
        pt2d_blob .rodata.pt2d_docs, pt2d_docs_openapi_json, "openapi.json"
        pt2d_blob .rodata.pt2d_docs, pt2d_docs_swagger_js, "swagger-ui-bundle.js"
        pt2d_blob .rodata.pt2d_docs, pt2d_docs_swagger_css, "swagger-ui.css"
#define PT2D_DOCS_COMPLETE 1
#endif
        .section .rodata.pt2d_docs, "a", %progbits
        .globl pt2d_docs_complete
        .type pt2d_docs_complete, %object
pt2d_docs_complete:
        .byte PT2D_DOCS_COMPLETE
        .size pt2d_docs_complete, 1

        /* Data only: the object must not ask for an executable stack. */
        .section .note.GNU-stack, "", %progbits
