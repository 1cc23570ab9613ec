/*
 * pt2d_page_assets.S - link the operator page into pt2scoped (see pt2d_page.h).
 *
 * The Makefile passes service/daemon/page to the assembler (-Wa,-I...), so
 * .incbin finds the files there, and lists them as the object's inputs.
 * The blobs are laid out by pt2d_blob.inc. Unlike the API reference
 * (pt2d_docs_assets.S) nothing here is made by npm: every build has it.
 */
#include "pt2d_blob.inc"

        pt2d_blob .rodata.pt2d_page, pt2d_page_index_html, "index.html"
        pt2d_blob .rodata.pt2d_page, pt2d_page_app_js, "app.js"
        pt2d_blob .rodata.pt2d_page, pt2d_page_style_css, "style.css"

        /* Data only: the object must not ask for an executable stack. */
        .section .note.GNU-stack, "", %progbits
