/* training_render.c - the training section's Markdown and plot
 * (training_render.h). */
#include "training_render.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "svg.h"
#include "template.h"

/* Tokens/s of each pair, baseline and patched side by side. */
static void render_plot(const sb_training_view *view, sb_buf *b)
{
    size_t n = view->npairs;
    double top = 0;
    for (size_t i = 0; i < n; i++)
        top = fmax(top, fmax(view->patched[i]->tokens_per_s, view->base[i]->tokens_per_s));
    const double left = 80, group_w = 120, height = 360, plot_top = 40, plot_bottom = 280;
    int width = (int)(left + group_w * (double)n + 160);
    sb_svg_begin(b, width, (int)height,
                 "Training step throughput, not paired: baseline against patched, one after the other");
    sb_scale y = {0, top * 1.1, plot_bottom, plot_top, 0};
    sb_svg_axis_linear_y(b, &y, left, left + group_w * (double)n, 5, "tokens/s (all devices)");
    for (size_t g = 0; g < n; g++) {
        const sb_training *t = view->patched[g], *base = view->base[g];
        double x = left + group_w * (double)g + 20;
        const sb_training *side[2] = {base, t};
        for (int s = 0; s < 2; s++) {
            double v = side[s]->tokens_per_s, py = sb_scale_map(&y, v);
            char tip[512], fig[32];
            sb_fmt_sig3(v, fig, sizeof fig);
            snprintf(tip, sizeof tip, "%s, %s, world size %lld, %s: %s tokens/s (run %lld)", t->model_name, t->sku,
                     t->world_size, side[s]->patch_name, fig, side[s]->run_id);
            sb_svg_rect(b, x + 40.0 * s, py, 36, plot_bottom - py, sb_svg_color((size_t)s), tip);
        }
        char label[256];
        snprintf(label, sizeof label, "%s x%lld", t->sku, t->world_size);
        sb_svg_text(b, x + 38, plot_bottom + 16, "middle", 11, 0, "#000000", label);
        snprintf(label, sizeof label, "seq %lld, batch %lld", t->seq_len, t->micro_batch_size);
        sb_svg_text(b, x + 38, plot_bottom + 30, "middle", 10, 0, "#555555", label);
    }
    double lx = left + group_w * (double)n + 20;
    sb_svg_rect(b, lx, plot_top, 12, 12, sb_svg_color(0), NULL);
    sb_svg_text(b, lx + 18, plot_top + 10, "start", 11, 0, "#000000", "baseline (none)");
    sb_svg_rect(b, lx, plot_top + 20, 12, 12, sb_svg_color(1), NULL);
    sb_svg_text(b, lx + 18, plot_top + 30, "start", 11, 0, "#000000", "patched");
    sb_svg_end(b);
}

static int render(const sb_training_opts *o, int pairs_only, sb_buf *out, sb_training_summary *sum,
                  sb_error *err)
{
    sb_training_view v;
    int rc = sb_training_view_build(o, pairs_only, &v, sum, err);
    const char *name = o->plot_name ? o->plot_name : "training-tokens.svg";
    if (rc == SB_OK && o->plot && sum->pairs > 0) {
        render_plot(&v, o->plot);
        if (sb_buf_failed(o->plot))
            rc = sb_error_set(err, NULL, NULL, "out of memory drawing %s", name);
        else
            sum->plot_drawn = 1;
    }
    sb_template *tpl = NULL;
    if (rc == SB_OK) {
        sb_tpl_set_str(v.data, "plot", sum->plot_drawn ? name : "");
        rc = sb_template_load_home("training.md.tmpl", &tpl, err);
    }
    if (rc == SB_OK)
        rc = sb_template_render(tpl, v.data, SB_TPL_ESCAPE_MARKDOWN, out, err);
    sb_template_free(tpl);
    sb_training_view_free(&v);
    return rc;
}

int sb_training_render_md(const sb_training_opts *o, sb_buf *out, sb_training_summary *sum,
                          sb_error *err)
{
    return render(o, 0, out, sum, err);
}

int sb_training_render_pairs_md(const sb_training_opts *o, sb_buf *out,
                                sb_training_summary *sum, sb_error *err)
{
    return render(o, 1, out, sum, err);
}
