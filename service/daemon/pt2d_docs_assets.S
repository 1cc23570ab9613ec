/*
 * pt2d_docs_assets.S - link the API documents into pt2scoped (see pt2d_docs.h).
 *
 * The Makefile copies or renders each file into $(BUILD)/openapi/ and passes
 * that directory to the assembler (-Wa,-I...), so .incbin finds it there and
 * make knows every input. Each blob is followed by a NUL, so it is also a C
 * string, and by an address-sized length (size_t) without that NUL.
 */
        .macro pt2d_docs_blob name, file
        .section .rodata.pt2d_docs, "a", %progbits
        .balign 16
        .globl \name
        .type \name, %object
\name:
        .incbin "\file"
.L\name\()_end:
        .byte 0
        .size \name, . - \name
        .balign 8
        .globl \name\()_len
        .type \name\()_len, %object
\name\()_len:
        .dc.a .L\name\()_end - \name
        .size \name\()_len, . - \name\()_len
        .endm

        pt2d_docs_blob pt2d_docs_openapi_yaml, "openapi.yaml"
        pt2d_docs_blob pt2d_docs_openapi_json, "openapi.json"
        pt2d_docs_blob pt2d_docs_swagger_js, "swagger-ui-bundle.js"
        pt2d_docs_blob pt2d_docs_swagger_css, "swagger-ui.css"

        /* Data only: the object must not ask for an executable stack. */
        .section .note.GNU-stack, "", %progbits
