/*
 * pt2d_page_assets.S - link the operator page into pt2scoped (see pt2d_page.h).
 *
 * The Makefile passes service/daemon/page to the assembler (-Wa,-I...), so
 * .incbin finds the files there, and lists them as the object's inputs.
 * Each blob is followed by a NUL, so it is also a C string, and by an
 * address-sized length (size_t) without that NUL. Unlike the API reference
 * (pt2d_docs_assets.S) nothing here is made by npm: every build has it.
 */
        .macro pt2d_page_blob name, file
        .section .rodata.pt2d_page, "a", %progbits
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

        pt2d_page_blob pt2d_page_index_html, "index.html"
        pt2d_page_blob pt2d_page_app_js, "app.js"
        pt2d_page_blob pt2d_page_style_css, "style.css"

        /* Data only: the object must not ask for an executable stack. */
        .section .note.GNU-stack, "", %progbits
