/*
 * pt2d_url.c - peer and origin URLs through libcurl's URL API (see pt2d_url.h).
 */
#include <string.h>

#include <curl/curl.h>

#include "pt2d_url.h"

#define URL_MAX 256

static int part_absent(CURLU *h, CURLUPart what)
{
    char *v = NULL;
    CURLUcode rc = curl_url_get(h, what, &v, 0);

    curl_free(v);
    return rc != CURLUE_OK;
}

int pt2d_url_ok(const char *url, enum pt2d_url_kind kind)
{
    CURLU *h;
    char *scheme = NULL, *host = NULL, *path = NULL;
    size_t i, n;
    int ok = 0;

    if (url == NULL || (n = strlen(url)) == 0 || n >= URL_MAX)
        return 0;
    for (i = 0; i < n; i++)
        if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
            return 0;
    h = curl_url();
    if (h == NULL)
        return 0;
    if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(h, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(h, CURLUPART_PATH, &path, 0) != CURLUE_OK)
        goto cleanup;
    /* curl adds a scheme to "host:port"; a configured URL must say it. */
    if (strncmp(url, scheme, strlen(scheme)) != 0 || strncmp(url + strlen(scheme), "://", 3) != 0)
        goto cleanup;
    if ((strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) || host[0] == '\0')
        goto cleanup;
    if (!part_absent(h, CURLUPART_USER) || !part_absent(h, CURLUPART_QUERY) ||
        !part_absent(h, CURLUPART_FRAGMENT) || strchr(url, '?') != NULL || strchr(url, '#') != NULL)
        goto cleanup;
    if (kind == PT2D_URL_ORIGIN && (strcmp(path, "/") != 0 || url[n - 1] == '/'))
        goto cleanup;
    ok = 1;
cleanup:
    curl_free(scheme);
    curl_free(host);
    curl_free(path);
    curl_url_cleanup(h);
    return ok;
}
