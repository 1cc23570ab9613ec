/*
 * pt2d_frame.h - header lines RFC 9112 refuses, seen through libmicrohttpd.
 *
 * Design: libmicrohttpd 0.9.75 accepts two header forms that RFC 9112
 * requires a server to refuse with 400, and reads both differently from a
 * proxy in front (request smuggling):
 *   - whitespace between the field name and its colon (§5.1):
 *     "Transfer-Encoding : chunked" is stored under the name
 *     "Transfer-Encoding " (so the body is read as absent);
 *   - an obs-folded line (§5.2): "Transfer-Encoding:\r\n chunked" is stored
 *     as the name "Transfer-Encodingchunked" with an empty value: MHD
 *     appends the continuation to the *name*, in a copy of it made in the
 *     connection's memory pool.
 * MHD parses the header block in place, in its read buffer: a line's value
 * starts right after its name's terminator (the colon's place) and the
 * optional whitespace that followed it. A name that was folded onto lives
 * elsewhere (the pool copy), so its value does not follow it: that is how
 * the fold is seen without the raw bytes. A name with a byte outside
 * RFC 9110's token (SP, HTAB, anything but tchar) is refused too.
 * The server checks every header of every request (kept-alive ones too)
 * when the headers are complete, before any body byte is read, and answers
 * 400 with "Connection: close", so the bytes after the headers are never
 * answered as a second request.
 *
 * Ownership: nothing is kept; the strings are borrowed for the call.
 */
#ifndef PT2D_FRAME_H
#define PT2D_FRAME_H

/*
 * Why the header MHD parsed as (key, value), both pointers into MHD's
 * request memory as the access handler sees them, is one RFC 9112 refuses;
 * NULL when it is sound.
 */
const char *pt2d_frame_header_problem(const char *key, const char *value);

#endif
