/* site_plausible.c - plausibility.html: every passing run, newest result
 * runs and measuring-session runs, that ran faster than its card's
 * ceilings allow (report/plausible.h), with the ceiling, the calibration
 * and the reason. Headlines leave these runs out; this page is where a
 * reader finds which and why. */
#include <stdlib.h>

#include "markdown.h"
#include "plausible.h"
#include "plausible_render.h"
#include "site_parts.h"
#include "site_plaus.h"

int site_build_plausibility(site_ctx *c, sb_error *err)
{
    sb_plaus_snap snap;
    sb_buf md = SB_BUF_INIT, linked = SB_BUF_INIT, b = SB_BUF_INIT;
    sb_plaus_summary sum;
    char *html = NULL;
    json_t *d = NULL;
    int rc = sb_site_plaus_snap_listing(c->db, c->picks, c->npicks, &c->session_set, &snap, err);
    if (rc == SB_OK) {
        rc = sb_plaus_render_implausible_md(&snap, c->picks, c->npicks, &c->session_set, "##", &md, &sum, err);
        if (rc == SB_OK)
            sb_plaus_render_set_aside_md(c->snap, "##", &md);
        sb_plaus_snap_free(&snap);
    }
    if (rc == SB_OK)
        rc = sb_markdown_to_html(sb_buf_str(&md), md.len, &html, err);
    if (rc == SB_OK) {
        site_link_runs(html, "", &linked);
        d = json_object();
        sb_tpl_set_str(d, "body", sb_buf_str(&linked));
        rc = site_render("plausibility.html.tmpl", d, &b, err);
    }
    if (rc == SB_OK)
        rc = site_page(c, "plausibility.html", 0, "regressions", "plausibility", &b, err);
    json_decref(d);
    free(html);
    sb_buf_free(&md);
    sb_buf_free(&linked);
    sb_buf_free(&b);
    return rc;
}
