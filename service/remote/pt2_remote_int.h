/*
 * pt2_remote_int.h - what pt2_remote.c shares with the other modules of
 * service/remote/ (the listing, the uploads): S3 credentials and the
 * restricted-mode address pin. Internal: nothing outside service/remote/
 * includes it.
 *
 * Design: one place reads the AWS_* keys and one place resolves, classifies
 * and pins a host's addresses, so a listing or an upload obeys exactly the
 * rules an inspection does (pt2_remote.h, "Restricted mode").
 */
#ifndef PT2_REMOTE_INT_H
#define PT2_REMOTE_INT_H

#include <stdint.h>

#include <curl/curl.h>

#include "pt2scope.h"

/* SigV4 keys from the environment; all NULL and sign = 0 when no key is set (unsigned). */
struct pt2_remote_cred {
    char *key_id, *secret;
    char *token_header; /* "x-amz-security-token: ..." or NULL */
    int sign;
};

/*
 * Read AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN into
 * *c (zeroed first; the caller frees it with pt2_remote_cred_clear, also on
 * failure). PT2_ERR_INVALID for bytes a header cannot carry, PT2_ERR_NOMEM.
 */
int pt2_remote_cred_load(struct pt2_remote_cred *c, struct pt2_error *err);
/* Wipe and free the secrets (a zeroed struct is fine). */
void pt2_remote_cred_clear(struct pt2_remote_cred *c);

/*
 * Restricted mode: resolve `host` (as pt2_remote_url_host gives it) within
 * deadline_ms, refuse it (PT2_ERR_REMOTE_REFUSED) when any address is not
 * public, and make the CURLOPT_RESOLVE entry that pins the checked
 * addresses into *pin (the caller's, curl_slist_free_all; NULL for an
 * address literal, which curl never looks up). Messages start with
 * `display`; timeout_ms is named when the resolver does not answer.
 */
int pt2_remote_pin_host(const char *display, const char *host, long port, int64_t deadline_ms,
                        long timeout_ms, struct curl_slist **pin, struct pt2_error *err);

/* CLOCK_MONOTONIC in milliseconds. */
int64_t pt2_remote_now_ms(void);

#endif
