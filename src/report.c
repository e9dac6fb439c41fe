/*
 * The report's HTML (report.h has the rules it states): written in one pass from the
 * rungs, every string escaped, every number of a curve or a data-v attribute exact.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_write.h"
#include "output.h"
#include "report.h"
#include "vcs_version.h"

/* The chart's box (SVG user units) and its plot area. */
#define CHART_W 960
#define CHART_H 260
#define PLOT_L 64
#define PLOT_R 12
#define PLOT_T 10
#define PLOT_B 28
#define PLOT_W (CHART_W - PLOT_L - PLOT_R)
#define PLOT_H (CHART_H - PLOT_T - PLOT_B)

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                       "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f" };
#define PALETTE_N (sizeof(palette) / sizeof(palette[0]))

/* The pooled lines: the source's mean, harmonic mean and minimum, and two percentiles. */
enum Stat { ST_MEAN, ST_HMEAN, ST_MIN, ST_MAX, ST_P1, ST_P5, ST_NB };
static const char *const stat_key[ST_NB] = { "mean", "harmonic_mean", "min", "max", "p1", "p5" };
static const char *const stat_label[ST_NB] = { "mean", "harmonic mean", "min", "max",
                                               "1st percentile", "5th percentile" };
static const char *const stat_dash[ST_NB] = { "9 4", "3 3", "1 4", "", "12 3 2 3", "6 3" };
static const bool stat_line[ST_NB] = { true, true, true, false, true, true };
static const int stat_pool[ST_P1] = { VMAF_POOL_METHOD_MEAN, VMAF_POOL_METHOD_HARMONIC_MEAN,
                                      VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX };

/* One rung's view of one metric of the report. */
typedef struct Cell {
    const VmafReportMetric *m; /* NULL: the rung has no such metric */
    unsigned finite;
    double lo, hi;             /* its finite values' range */
    bool has[ST_NB];
    double stat[ST_NB];
} Cell;

typedef struct Writer {
    const VmafReport *r;
    FILE *f;
    unsigned metric_cnt;       /* metrics of all rungs, by name, in order of first appearance */
    const char **name;
    bool *model;
    unsigned *order;           /* display order: model scores first */
    unsigned primary;
    Cell *cell;                /* [rung * metric_cnt + metric] */
    unsigned **worst;          /* per rung: positions into its frames, worst first */
    unsigned *worst_cnt;
} Writer;

static Cell *cell_at(const Writer *w, unsigned rung, unsigned metric)
{
    return &w->cell[(size_t)rung * w->metric_cnt + metric];
}

/* ---- text -------------------------------------------------------------------------------- */

/* The length (1..4) of the valid UTF-8 sequence at s, or 0 (also for C1 controls). */
static unsigned utf8_len(const unsigned char *s)
{
    uint32_t c = 0;
    const unsigned n = vmaf_utf8_decode(s, &c);
    return n && c >= 0x80 && c < 0xa0 ? 0 : n;
}

/* s as HTML text or attribute value: markup characters as references, bytes that are not
 * UTF-8 and control characters as U+FFFD. */
static void put_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        switch (*p) {
        case '&': fputs("&amp;", f); p++; continue;
        case '<': fputs("&lt;", f); p++; continue;
        case '>': fputs("&gt;", f); p++; continue;
        case '"': fputs("&quot;", f); p++; continue;
        case '\'': fputs("&#39;", f); p++; continue;
        default: break;
        }
        const unsigned n = utf8_len(p);
        if (!n || (n == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7f))) {
            fputs("\xef\xbf\xbd", f);
            p++;
            continue;
        }
        fwrite(p, 1, n, f);
        p += n;
    }
}

/* The shortest of %.15g, %.16g, %.17g that reads back as x (finite x). */
static const char *exact(char *buf, size_t sz, double x)
{
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, sz, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}

/* A number for reading: 6 decimals, as the output file's default format. */
static const char *shown(char *buf, size_t sz, double x)
{
    if (isnan(x)) snprintf(buf, sz, "NaN");
    else if (isinf(x)) snprintf(buf, sz, x > 0 ? "inf" : "-inf");
    else if (fabs(x) >= 1e9) snprintf(buf, sz, "%.6g", x);
    else snprintf(buf, sz, "%.6f", x);
    return buf;
}

/* A table cell holding x: the exact value in data-v (absent when not finite). */
static void put_value_cell(FILE *f, double x, const char *attrs)
{
    char a[40], b[40];
    if (isfinite(x)) fprintf(f, "<td%s data-v=\"%s\">%s</td>", attrs, exact(a, sizeof(a), x),
                             shown(b, sizeof(b), x));
    else fprintf(f, "<td%s>%s</td>", attrs, shown(b, sizeof(b), x));
}

/* frame / fps as H:MM:SS.mmm (milliseconds truncated). */
static void timecode(char *buf, size_t sz, const VmafReport *r, unsigned frame)
{
    const uint64_t t = (uint64_t)frame * r->fps_den;
    const uint64_t s = t / r->fps_num, ms = (t % r->fps_num) * 1000 / r->fps_num;
    snprintf(buf, sz, "%llu:%02llu:%02llu.%03llu", (unsigned long long)(s / 3600),
             (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
             (unsigned long long)ms);
}

/* ---- statistics ---------------------------------------------------------------------------- */

/* The k-th smallest (from 0) of v[0..n), which it reorders so that v[0..k) are the smaller
 * values (quickselect, Hoare's partition: runs of equal values split evenly). */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
    const ptrdiff_t want = (ptrdiff_t)k;
    while (lo < hi) {
        const double pivot = v[lo + (hi - lo) / 2];
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                const double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        /* [lo, j] <= pivot <= [i, hi]; between them, values equal to the pivot */
        if (want <= j) hi = j;
        else if (want >= i) lo = i;
        else break;
    }
    return v[k];
}

/* Nearest rank: the value of rank ceil(p * n / 100), at least 1. */
static size_t rank_index(unsigned p, size_t n)
{
    const size_t rank = ((size_t)p * n + 99) / 100;
    return rank ? rank - 1 : 0;
}

static void fill_cell(Cell *c, const VmafReportRung *g, double *scratch)
{
    const VmafReportMetric *m = c->m;
    size_t n = 0;
    for (unsigned i = 0; i < g->frame_cnt; i++)
        if (isfinite(m->value[i])) scratch[n++] = m->value[i];
    c->finite = (unsigned)n;
    for (int s = ST_MEAN; s < ST_P1; s++) {
        c->has[s] = m->pooled[stat_pool[s]];
        c->stat[s] = m->pool[stat_pool[s]];
    }
    if (!n) return;
    c->lo = c->hi = scratch[0];
    for (size_t i = 1; i < n; i++) {
        if (scratch[i] < c->lo) c->lo = scratch[i];
        if (scratch[i] > c->hi) c->hi = scratch[i];
    }
    /* p5 first: its selection leaves the smaller values below it, where p1 is */
    const size_t k5 = rank_index(5, n), k1 = rank_index(1, n);
    c->stat[ST_P5] = select_kth(scratch, n, k5);
    c->stat[ST_P1] = select_kth(scratch, k5 + 1, k1);
    c->has[ST_P5] = c->has[ST_P1] = true;
}

/* The VMAF_REPORT_WORST lowest finite values of m (ties: the earlier frame), worst first. */
static unsigned find_worst(const VmafReportRung *g, const VmafReportMetric *m, unsigned *out)
{
    unsigned cnt = 0;
    for (unsigned i = 0; i < g->frame_cnt; i++) {
        const double v = m->value[i];
        if (!isfinite(v)) continue;
        if (cnt == VMAF_REPORT_WORST && !(v < m->value[out[cnt - 1]])) continue;
        unsigned at = cnt < VMAF_REPORT_WORST ? cnt++ : cnt - 1;
        while (at && v < m->value[out[at - 1]]) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = i;
    }
    return cnt;
}

static int find_metric(const Writer *w, const char *name)
{
    for (unsigned j = 0; j < w->metric_cnt; j++)
        if (!strcmp(w->name[j], name)) return (int)j;
    return -1;
}

static int prepare(Writer *w)
{
    const VmafReport *r = w->r;
    unsigned cap = 0, max_frames = 1;
    for (unsigned k = 0; k < r->rung_cnt; k++) {
        cap += r->rung[k].metric_cnt;
        if (r->rung[k].frame_cnt > max_frames) max_frames = r->rung[k].frame_cnt;
    }
    w->name = calloc(cap + 1, sizeof(*w->name));
    w->model = calloc(cap + 1, sizeof(*w->model));
    w->order = calloc(cap + 1, sizeof(*w->order));
    if (!w->name || !w->model || !w->order) return -ENOMEM;
    for (unsigned k = 0; k < r->rung_cnt; k++)
        for (unsigned j = 0; j < r->rung[k].metric_cnt; j++) {
            const VmafReportMetric *m = &r->rung[k].metric[j];
            if (find_metric(w, m->name) >= 0) continue;
            w->name[w->metric_cnt] = m->name;
            w->model[w->metric_cnt++] = m->model;
        }
    unsigned o = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned j = 0; j < w->metric_cnt; j++)
            if (w->model[j] == !pass) w->order[o++] = j;
    w->primary = w->metric_cnt ? w->order[0] : 0;

    w->cell = calloc((size_t)r->rung_cnt * (w->metric_cnt ? w->metric_cnt : 1), sizeof(*w->cell));
    w->worst = calloc(r->rung_cnt, sizeof(*w->worst));
    w->worst_cnt = calloc(r->rung_cnt, sizeof(*w->worst_cnt));
    double *scratch = malloc((size_t)max_frames * sizeof(*scratch));
    if (!w->cell || !w->worst || !w->worst_cnt || !scratch) {
        free(scratch);
        return -ENOMEM;
    }
    int err = 0;
    for (unsigned k = 0; k < r->rung_cnt && !err; k++) {
        const VmafReportRung *g = &r->rung[k];
        for (unsigned j = 0; j < g->metric_cnt; j++) {
            Cell *c = cell_at(w, k, (unsigned)find_metric(w, g->metric[j].name));
            if (c->m) continue; /* a name twice in one rung: the first */
            c->m = &g->metric[j];
            fill_cell(c, g, scratch);
        }
        const Cell *p = w->metric_cnt ? cell_at(w, k, w->primary) : NULL;
        if (p && p->m) {
            w->worst[k] = malloc(VMAF_REPORT_WORST * sizeof(**w->worst));
            if (!w->worst[k]) err = -ENOMEM;
            else w->worst_cnt[k] = find_worst(g, p->m, w->worst[k]);
        }
    }
    free(scratch);
    return err;
}

static void release(Writer *w)
{
    free(w->name);
    free(w->model);
    free(w->order);
    free(w->cell);
    if (w->worst)
        for (unsigned k = 0; k < w->r->rung_cnt; k++) free(w->worst[k]);
    free(w->worst);
    free(w->worst_cnt);
}

/* ---- the page ------------------------------------------------------------------------------ */

static const char style[] =
    "body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;"
    "margin:16px 24px;color:#222;background:#fff}\n"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px}"
    "h3{font-size:14px;margin:4px 0}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
    "td,th{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}\n"
    "td:first-child,th:first-child{text-align:left}\n"
    "table.params th{text-align:left;font-weight:600;vertical-align:top}"
    "table.params td{text-align:left;white-space:normal;word-break:break-all}\n"
    "table.sortable th{cursor:pointer;user-select:none}"
    "table.sortable th:after{content:\" \\2195\";color:#aaa}\n"
    ".wrap{overflow-x:auto}.note{color:#666}\n"
    "figure{margin:12px 0;border:1px solid #ddd;border-radius:4px;padding:6px 10px}\n"
    "figcaption{font-weight:600}figcaption .kind{font-weight:400;color:#777;margin-left:6px}\n"
    "svg.chart{width:100%;max-width:1200px;height:auto;display:block}\n"
    "svg.chart text{font-size:11px;fill:#555}\n"
    ".grid{stroke:#ececec;stroke-width:1}.axis{stroke:#999;stroke-width:1;fill:none}\n"
    ".curve{fill:none;stroke-width:1.4px;stroke-linejoin:round;vector-effect:non-scaling-stroke}\n"
    ".pool{stroke-width:1px;opacity:.85;vector-effect:non-scaling-stroke}\n"
    ".worst{stroke:#000;stroke-width:1}.worst.hl{stroke-width:3;r:7px}\n"
    ".swatch{display:inline-block;width:12px;height:12px;border-radius:2px;"
    "vertical-align:-1px;margin-right:5px}\n"
    ".controls div{margin:4px 0}.controls label{margin-right:14px;white-space:nowrap}\n"
    ".controls button{margin-left:4px}\n"
    ".worstlists{display:flex;flex-wrap:wrap;gap:8px 28px}\n"
    "#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #999;"
    "border-radius:3px;padding:4px 7px;font-size:12px;white-space:pre;display:none;"
    "box-shadow:0 1px 4px rgba(0,0,0,.2)}\n";

/* Small and self-contained: toggles, sorting, the hover read-out, worst-frame links. */
static const char script[] =
    "(function(){'use strict';\n"
    "function each(s,f,root){Array.prototype.forEach.call((root||document).querySelectorAll(s),f);}\n"
    "function show(e,on){e.style.display=on?'':'none';}\n"
    "function checked(s){var c=document.querySelector(s);return !c||c.checked;}\n"
    "function apply(){\n"
    " each('input[data-chart]',function(c){show(document.getElementById('chart-'+c.getAttribute('data-chart')),c.checked);});\n"
    " each('svg [data-rung],table.legend tr[data-rung],.worstlist[data-rung]',function(e){\n"
    "  var on=checked('input[data-rung-toggle=\"'+e.getAttribute('data-rung')+'\"]');\n"
    "  var st=e.getAttribute('data-stat');if(st)on=on&&checked('input[data-stat=\"'+st+'\"]');\n"
    "  show(e,on);});\n"
    "}\n"
    "each('.controls input',function(c){c.addEventListener('change',apply);});\n"
    "each('.controls button[data-all]',function(b){b.addEventListener('click',function(){\n"
    " var on=b.getAttribute('data-all')==='1';each('input[data-chart]',function(c){c.checked=on;});apply();});});\n"
    "each('table.sortable th',function(th){th.addEventListener('click',function(){\n"
    " var tb=th.closest('table').tBodies[0],i=th.cellIndex,rows=Array.prototype.slice.call(tb.rows);\n"
    " var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');\n"
    " rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];if(!x||!y)return 0;\n"
    "  var u=x.getAttribute('data-v'),v=y.getAttribute('data-v');\n"
    "  if(u!==null&&v!==null)return dir*(parseFloat(u)-parseFloat(v));\n"
    "  if(u===null&&v===null)return dir*x.textContent.localeCompare(y.textContent);\n"
    "  return u===null?1:-1;});\n"
    " rows.forEach(function(r){tb.appendChild(r);});});});\n"
    "var tip=document.getElementById('tip'),fn=+document.body.getAttribute('data-fps-num'),"
    "fd=+document.body.getAttribute('data-fps-den');\n"
    "function tc(f){if(!fn||!fd)return '';var s=Math.floor(f*fd/fn),ms=Math.floor((f*fd%fn)*1000/fn);\n"
    " function two(x){return (x<10?'0':'')+x;}\n"
    " return ' ('+Math.floor(s/3600)+':'+two(Math.floor(s/60)%60)+':'+two(s%60)+'.'+('00'+ms).slice(-3)+')';}\n"
    "function pts(pl){if(!pl._x){var a=pl.getAttribute('points').trim(),x=[],y=[];\n"
    " if(a)a.split(' ').forEach(function(p){var q=p.split(',');x.push(+q[0]);y.push(+q[1]);});\n"
    " pl._x=x;pl._y=y;}return pl;}\n"
    "function rname(k){var e=document.querySelector('.rname[data-r=\"'+k+'\"]');return e?e.textContent:'';}\n"
    "each('svg.chart',function(svg){var g=svg.querySelector('g.plot');\n"
    " svg.addEventListener('mousemove',function(ev){var m=g.getScreenCTM();if(!m)return;\n"
    "  var p=svg.createSVGPoint();p.x=ev.clientX;p.y=ev.clientY;var d=p.matrixTransform(m.inverse()),out=[];\n"
    "  each('polyline.curve',function(pl){if(pl.style.display==='none')return;pts(pl);\n"
    "   var x=pl._x,n=x.length;if(!n)return;var lo=0,hi=n-1;\n"
    "   while(hi-lo>1){var mid=(lo+hi)>>1;if(x[mid]<d.x)lo=mid;else hi=mid;}\n"
    "   var k=Math.abs(x[lo]-d.x)<=Math.abs(x[hi]-d.x)?lo:hi;\n"
    "   out.push(rname(pl.getAttribute('data-rung'))+': frame '+x[k]+tc(x[k])+'  '+pl._y[k]);},g);\n"
    "  if(!out.length){tip.style.display='none';return;}\n"
    "  tip.textContent=out.join('\\n');tip.style.left=(ev.clientX+14)+'px';tip.style.top=(ev.clientY+14)+'px';\n"
    "  tip.style.display='block';});\n"
    " svg.addEventListener('mouseleave',function(){tip.style.display='none';});});\n"
    "function mark(id){var c=id&&document.getElementById(id);if(!c||!c.classList.contains('worst'))return;\n"
    " var fig=c.closest('figure'),cb=document.querySelector('input[data-chart=\"'+fig.getAttribute('data-metric')+'\"]');\n"
    " if(cb)cb.checked=true;var rb=document.querySelector('input[data-rung-toggle=\"'+c.getAttribute('data-rung')+'\"]');\n"
    " if(rb)rb.checked=true;apply();each('.worst.hl',function(e){e.classList.remove('hl');});c.classList.add('hl');}\n"
    "each('a.wl',function(a){a.addEventListener('click',function(){mark(a.getAttribute('href').slice(1));});});\n"
    "apply();if(location.hash)mark(location.hash.slice(1));\n"
    /* #selftest (tests/report/report_browser.sh): sort every sortable column up and down,
     * flip every toggle twice, follow a worst-frame link to a hidden mark; the verdict, PASS
     * or FAIL:why, goes into <pre id=\"selftest\"> */
    "if(location.hash==='#selftest')(function(){var why='',n=0,out=document.createElement('pre');\n"
    " function need(c,m){n++;if(!c&&!why)why=m;}\n"
    " function vis(e){return e.style.display!=='none';}\n"
    " function flip(c){c.checked=!c.checked;c.dispatchEvent(new Event('change'));}\n"
    " try{each('table.sortable th',function(th){var tb=th.closest('table').tBodies[0],i=th.cellIndex,\n"
    "  cnt=tb.rows.length,h=th.textContent;['asc','desc'].forEach(function(want){th.click();\n"
    "   var d=want==='asc'?1:-1,r=tb.rows;need(th.getAttribute('data-dir')===want&&r.length===cnt,'sort '+h);\n"
    "   for(var k=1;k<r.length;k++){var x=r[k-1].cells[i],y=r[k].cells[i];if(!x||!y)continue;\n"
    "    var u=x.getAttribute('data-v'),v=y.getAttribute('data-v');\n"
    "    need(u!==null||v===null,'sort '+want+' '+h+': a number after a text');\n"
    "    if(u!==null&&v!==null)need(d*(parseFloat(v)-parseFloat(u))>=0,'sort '+want+' '+h);\n"
    "    if(u===null&&v===null)need(d*y.textContent.localeCompare(x.textContent)>=0,'sort '+want+' '+h);}});});\n"
    " each('input[data-chart]',function(c){var f=document.getElementById('chart-'+c.getAttribute('data-chart'));\n"
    "  for(var t=0;t<2;t++){flip(c);need(vis(f)===c.checked,'chart toggle '+c.getAttribute('data-chart'));}});\n"
    " each('input[data-rung-toggle],input[data-stat]',function(c){var st=c.getAttribute('data-stat'),\n"
    "   s=st?'svg [data-stat=\"'+st+'\"]':'svg [data-rung=\"'+c.getAttribute('data-rung-toggle')+'\"]';\n"
    "  for(var t=0;t<2;t++){flip(c);var m=0;each(s,function(e){m++;var es=e.getAttribute('data-stat');\n"
    "    need(vis(e)===!!(c.checked&&(st||!es||checked('input[data-stat=\"'+es+'\"]'))),'toggle '+s);});\n"
    "   need(m>0,'nothing toggled by '+s);}});\n"
    " var a=document.querySelector('a.wl'),id=a?a.getAttribute('href').slice(1):'',c=id&&document.getElementById(id);\n"
    " need(c&&c.classList.contains('worst'),'worst-frame link '+id+': no mark');\n"
    " if(c){var fig=c.closest('figure'),cb=document.querySelector('input[data-chart=\"'+fig.getAttribute('data-metric')+'\"]'),\n"
    "  rb=document.querySelector('input[data-rung-toggle=\"'+c.getAttribute('data-rung')+'\"]');\n"
    "  if(cb.checked)flip(cb);if(rb.checked)flip(rb);need(!vis(fig)&&!vis(c),'the mark not hidden');a.click();\n"
    "  need(vis(fig)&&vis(c)&&c.classList.contains('hl')&&cb.checked&&rb.checked,'worst-frame link '+id+': its mark not shown');\n"
    "  need(c.getAttribute('data-frame')===a.closest('tr').getAttribute('data-frame'),'worst-frame link '+id+': another frame');}\n"
    " }catch(e){if(!why)why='exception '+e;}\n"
    " out.id='selftest';out.textContent=why?'FAIL:'+why:'PASS '+n+' checks';document.body.appendChild(out);})();\n"
    "})();\n";

static const char *color(unsigned k)
{
    return palette[k % PALETTE_N];
}

static void put_swatch(FILE *f, unsigned k)
{
    fprintf(f, "<span class=\"swatch\" style=\"background:%s\"></span>", color(k));
}

static void put_params(const Writer *w)
{
    FILE *f = w->f;
    fputs("<section id=\"run\"><h2>Run</h2>\n<table class=\"params\"><tbody>\n", f);
    for (unsigned i = 0; i < w->r->param_cnt; i++) {
        fputs("<tr><th>", f);
        put_text(f, w->r->param[2 * i]);
        fputs("</th><td>", f);
        put_text(f, w->r->param[2 * i + 1]);
        fputs("</td></tr>\n", f);
    }
    fputs("<tr><th>Frame rate</th><td>", f);
    if (w->r->fps_den) {
        char a[40];
        fprintf(f, "%u/%u (%s frames per second): time codes from the first scored frame",
                w->r->fps_num, w->r->fps_den,
                exact(a, sizeof(a), (double)w->r->fps_num / w->r->fps_den));
    } else {
        fputs("unknown: no time codes (a Y4M header's F tag or --report-fps gives one)", f);
    }
    fputs("</td></tr>\n</tbody></table></section>\n", f);
}

static void put_pooled_table(const Writer *w)
{
    FILE *f = w->f;
    const VmafReport *r = w->r;
    fputs("<section id=\"pooled\"><h2>Pooled scores</h2>\n<p class=\"note\">Click a heading "
          "to sort. Model scores: mean, harmonic mean, minimum, 1st and 5th percentile; other "
          "metrics: mean.</p>\n<div class=\"wrap\"><table class=\"sortable\" id=\"pooled-table\">"
          "<thead><tr><th>Rendition</th><th>Frames</th>", f);
    for (unsigned o = 0; o < w->metric_cnt; o++) {
        const unsigned j = w->order[o];
        for (int s = ST_MEAN; s < ST_NB; s++) {
            if (s == ST_MAX || (!w->model[j] && s != ST_MEAN)) continue;
            fprintf(f, "<th data-m=\"%u\" data-s=\"%s\">", j, stat_key[s]);
            put_text(f, w->name[j]);
            fprintf(f, " %s</th>", stat_label[s]);
        }
    }
    fputs("<th>Version</th></tr></thead>\n<tbody>\n", f);
    for (unsigned k = 0; k < r->rung_cnt; k++) {
        const VmafReportRung *g = &r->rung[k];
        fprintf(f, "<tr data-r=\"%u\"><td>", k);
        put_swatch(f, k);
        fprintf(f, "<span class=\"rname\" data-r=\"%u\" title=\"", k);
        put_text(f, g->source);
        if (g->output) {
            fputs(" \xe2\x86\x92 ", f);
            put_text(f, g->output);
        }
        fputs("\">", f);
        put_text(f, g->name);
        fprintf(f, "</span></td><td data-v=\"%u\">%u</td>", g->frame_cnt, g->frame_cnt);
        for (unsigned o = 0; o < w->metric_cnt; o++) {
            const unsigned j = w->order[o];
            const Cell *c = cell_at(w, k, j);
            for (int s = ST_MEAN; s < ST_NB; s++) {
                if (s == ST_MAX || (!w->model[j] && s != ST_MEAN)) continue;
                char attrs[64];
                snprintf(attrs, sizeof(attrs), " data-m=\"%u\" data-s=\"%s\"", j, stat_key[s]);
                if (c->m && c->has[s]) put_value_cell(f, c->stat[s], attrs);
                else fprintf(f, "<td%s>\xe2\x80\x94</td>", attrs);
            }
        }
        fputs("<td>", f);
        put_text(f, g->version ? g->version : "?");
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    bool any = false;
    for (unsigned k = 0; k < r->rung_cnt; k++) any = any || r->rung[k].agg_cnt;
    if (any) {
        fputs("<h3>Aggregate metrics</h3><table class=\"aggregates\"><tbody>\n", f);
        for (unsigned k = 0; k < r->rung_cnt; k++)
            for (unsigned i = 0; i < r->rung[k].agg_cnt; i++) {
                fprintf(f, "<tr data-r=\"%u\"><td>", k);
                put_text(f, r->rung[k].name);
                fputs("</td><td>", f);
                put_text(f, r->rung[k].agg_name[i]);
                fputs("</td>", f);
                put_value_cell(f, r->rung[k].agg_value[i], "");
                fputs("</tr>\n", f);
            }
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
}

static void put_controls(const Writer *w)
{
    FILE *f = w->f;
    const VmafReport *r = w->r;
    bool any_model = false;
    for (unsigned j = 0; j < w->metric_cnt; j++) any_model = any_model || w->model[j];
    fputs("<div class=\"controls\">\n<div>Metrics: ", f);
    for (unsigned o = 0; o < w->metric_cnt; o++) {
        const unsigned j = w->order[o];
        fprintf(f, "<label><input type=\"checkbox\" data-chart=\"%u\"%s> ", j,
                w->model[j] || !any_model ? " checked" : "");
        put_text(f, w->name[j]);
        fputs("</label>", f);
    }
    fputs("<button type=\"button\" data-all=\"1\">all</button>"
          "<button type=\"button\" data-all=\"0\">none</button></div>\n", f);
    if (r->rung_cnt > 1) {
        fputs("<div>Renditions: ", f);
        for (unsigned k = 0; k < r->rung_cnt; k++) {
            fprintf(f, "<label><input type=\"checkbox\" data-rung-toggle=\"%u\" checked> ", k);
            put_swatch(f, k);
            put_text(f, r->rung[k].name);
            fputs("</label>", f);
        }
        fputs("</div>\n", f);
    }
    fputs("<div>Pooled lines: ", f);
    for (int s = ST_MEAN; s < ST_NB; s++) {
        if (!stat_line[s]) continue;
        /* a ladder's charts show its means; every line of a single run */
        fprintf(f, "<label><input type=\"checkbox\" data-stat=\"%s\"%s> %s "
                "<svg width=\"34\" height=\"8\" aria-hidden=\"true\"><line x1=\"1\" y1=\"4\" "
                "x2=\"33\" y2=\"4\" stroke=\"#444\" stroke-dasharray=\"%s\"/></svg></label>",
                stat_key[s], r->rung_cnt == 1 || s == ST_MEAN ? " checked" : "", stat_label[s],
                stat_dash[s]);
    }
    fputs("</div>\n</div>\n", f);
}

/* A round step near range/n: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int n)
{
    const double raw = range / n;
    const double p = pow(10, floor(log10(raw)));
    const double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Decimals that label multiples of step exactly enough. */
static int step_decimals(double step)
{
    const int d = (int)ceil(-log10(step) - 1e-9);
    return d < 0 ? 0 : d > 12 ? 12 : d;
}

typedef struct Frame {
    double f0, f1, lo, hi;   /* data range */
    double sx, sy;           /* data to user units */
} Frame;

static double px(const Frame *fr, double x)
{
    return PLOT_L + (x - fr->f0) * fr->sx;
}

static double py(const Frame *fr, double y)
{
    return PLOT_T + (fr->hi - y) * fr->sy;
}

static void put_axes(FILE *f, const Frame *fr)
{
    const double ys = nice_step(fr->hi - fr->lo, 5);
    const int yd = step_decimals(ys);
    double y = ceil(fr->lo / ys) * ys;
    for (int t = 0; t < 12 && y <= fr->hi + ys * 1e-9; t++, y += ys) {
        const double at = py(fr, y);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\"/>"
                "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%.*f</text>\n", PLOT_L,
                PLOT_L + PLOT_W, at, at, PLOT_L - 6, at + 4, yd, fabs(y) < ys * 1e-9 ? 0 : y);
    }
    double xs = nice_step(fr->f1 - fr->f0, 8);
    if (xs < 1) xs = 1;
    double x = ceil(fr->f0 / xs) * xs;
    for (int t = 0; t < 12 && x <= fr->f1 + 1e-9; t++, x += xs) {
        const double at = px(fr, x);
        fprintf(f, "<line class=\"grid\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%d\" y2=\"%d\"/>"
                "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n", at, at, PLOT_T,
                PLOT_T + PLOT_H, at, PLOT_T + PLOT_H + 16, x);
    }
    fprintf(f, "<rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">frame</text>\n", PLOT_L, PLOT_T, PLOT_W,
            PLOT_H, PLOT_L + PLOT_W, CHART_H - 1);
}

static int cmp_unsigned(const void *a, const void *b)
{
    const unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

static void put_point(FILE *f, const VmafReportRung *g, const VmafReportMetric *m, unsigned i,
                      bool *first)
{
    char a[40];
    fprintf(f, "%s%u,%s", *first ? "" : " ", g->frame[i], exact(a, sizeof(a), m->value[i]));
    *first = false;
}

/* The curve's points (report.h: decimation); worst: positions to draw exactly, ascending. */
static void put_curve_points(FILE *f, const VmafReportRung *g, const Cell *c,
                             const unsigned *worst, unsigned worst_cnt)
{
    const VmafReportMetric *m = c->m;
    bool first = true;
    if (c->finite <= VMAF_REPORT_MAX_POINTS) {
        for (unsigned i = 0; i < g->frame_cnt; i++)
            if (isfinite(m->value[i])) put_point(f, g, m, i, &first);
        return;
    }
    const uint64_t n = c->finite, B = VMAF_REPORT_BUCKETS;
    unsigned b = 0, w = 0, lo = 0, hi = 0;
    uint64_t seen = 0, end = n / B; /* bucket 0 holds finite values [0, n/B) */
    for (unsigned i = 0; i < g->frame_cnt; i++) {
        if (!isfinite(m->value[i])) continue;
        if (seen == (uint64_t)b * n / B) lo = hi = i; /* the bucket's first value */
        if (m->value[i] < m->value[lo]) lo = i;
        if (m->value[i] > m->value[hi]) hi = i;
        if (++seen < end) continue;
        /* the bucket ends at i: its minimum, maximum and worst frames, in frame order */
        unsigned pick[2 + VMAF_REPORT_WORST], np = 0;
        pick[np++] = lo < hi ? lo : hi;
        if (hi != lo) pick[np++] = lo < hi ? hi : lo;
        for (; w < worst_cnt && worst[w] <= i; w++) pick[np++] = worst[w];
        qsort(pick, np, sizeof(*pick), cmp_unsigned);
        for (unsigned q = 0; q < np; q++)
            if (!q || pick[q] != pick[q - 1]) put_point(f, g, m, pick[q], &first);
        b++;
        end = (uint64_t)(b + 1) * n / B;
    }
}

static void put_chart(const Writer *w, unsigned j)
{
    FILE *f = w->f;
    const VmafReport *r = w->r;
    const bool primary = j == w->primary;
    Frame fr = { .f0 = INFINITY, .f1 = -INFINITY, .lo = INFINITY, .hi = -INFINITY };
    for (unsigned k = 0; k < r->rung_cnt; k++) {
        const Cell *c = cell_at(w, k, j);
        if (!c->m || !r->rung[k].frame_cnt) continue;
        fr.f0 = fmin(fr.f0, r->rung[k].frame[0]);
        fr.f1 = fmax(fr.f1, r->rung[k].frame[r->rung[k].frame_cnt - 1]);
        if (!c->finite) continue;
        fr.lo = fmin(fr.lo, c->lo);
        fr.hi = fmax(fr.hi, c->hi);
        for (int s = ST_MEAN; s < ST_NB; s++)
            if (c->has[s] && isfinite(c->stat[s])) {
                fr.lo = fmin(fr.lo, c->stat[s]);
                fr.hi = fmax(fr.hi, c->stat[s]);
            }
    }
    if (!(fr.f0 <= fr.f1)) fr.f0 = 0, fr.f1 = 1;
    if (fr.f1 == fr.f0) fr.f1 = fr.f0 + 1;
    if (!(fr.lo <= fr.hi)) fr.lo = 0, fr.hi = 1;
    const double span = fr.hi - fr.lo, mag = fmax(fabs(fr.lo), fabs(fr.hi));
    if (span <= mag * 1e-9 || span < 1e-300) {
        const double pad = mag > 0 ? mag * 0.01 : 0.5;
        fr.lo -= pad;
        fr.hi += pad;
    } else {
        fr.lo -= span * 0.04;
        fr.hi += span * 0.04;
    }
    fr.sx = PLOT_W / (fr.f1 - fr.f0);
    fr.sy = PLOT_H / (fr.hi - fr.lo);

    fprintf(f, "<figure id=\"chart-%u\" class=\"chart\" data-metric=\"%u\" data-name=\"", j, j);
    put_text(f, w->name[j]);
    fputs("\"><figcaption>", f);
    put_text(f, w->name[j]);
    fprintf(f, "<span class=\"kind\">%s%s</span></figcaption>\n", w->model[j] ? "model score"
            : "feature", primary ? "; worst frames marked" : "");
    fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", CHART_W,
            CHART_H);
    put_text(f, w->name[j]);
    fputs(" per frame\">\n", f);
    put_axes(f, &fr);
    char a[40], b[40], e[40], d[40];
    /* data coordinates (frame, value) to user units: the points are the values themselves */
    fprintf(f, "<g class=\"plot\" transform=\"matrix(%s 0 0 %s %s %s)\">\n",
            exact(a, sizeof(a), fr.sx), exact(b, sizeof(b), -fr.sy),
            exact(e, sizeof(e), PLOT_L - fr.f0 * fr.sx),
            exact(d, sizeof(d), PLOT_T + fr.hi * fr.sy));
    for (unsigned k = 0; k < r->rung_cnt; k++) {
        const Cell *c = cell_at(w, k, j);
        const VmafReportRung *g = &r->rung[k];
        if (!c->m) continue;
        unsigned sorted[VMAF_REPORT_WORST], ns = 0;
        if (primary) {
            ns = w->worst_cnt[k];
            memcpy(sorted, w->worst[k], ns * sizeof(*sorted));
            qsort(sorted, ns, sizeof(*sorted), cmp_unsigned);
        }
        fprintf(f, "<polyline class=\"curve\" data-rung=\"%u\" data-values=\"%u\" stroke=\"%s\" "
                "points=\"", k, c->finite, color(k));
        put_curve_points(f, g, c, sorted, ns);
        fputs("\"/>\n", f);
        for (int s = ST_MEAN; s < ST_NB; s++) {
            if (!stat_line[s] || !c->has[s] || !isfinite(c->stat[s])) continue;
            const char *v = exact(a, sizeof(a), c->stat[s]);
            fprintf(f, "<line class=\"pool\" data-rung=\"%u\" data-stat=\"%s\" stroke=\"%s\" "
                    "stroke-dasharray=\"%s\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"><title>",
                    k, stat_key[s], color(k), stat_dash[s], exact(b, sizeof(b), fr.f0),
                    exact(e, sizeof(e), fr.f1), v, v);
            put_text(f, g->name);
            fprintf(f, ": %s %s</title></line>\n", stat_label[s], shown(d, sizeof(d), c->stat[s]));
        }
    }
    fputs("</g>\n", f);
    if (primary) {
        fputs("<g class=\"marks\">\n", f);
        for (unsigned k = 0; k < r->rung_cnt; k++) {
            const VmafReportRung *g = &r->rung[k];
            const VmafReportMetric *m = cell_at(w, k, j)->m;
            for (unsigned q = w->worst_cnt[k]; q-- > 0;) { /* the worst drawn last, on top */
                const unsigned i = w->worst[k][q];
                fprintf(f, "<circle id=\"w%u-%u\" class=\"worst\" data-rung=\"%u\" "
                        "data-frame=\"%u\" data-v=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\" "
                        "fill=\"%s\"><title>", k, q + 1, k, g->frame[i],
                        exact(a, sizeof(a), m->value[i]), px(&fr, g->frame[i]),
                        py(&fr, m->value[i]), color(k));
                put_text(f, g->name);
                fprintf(f, ": worst #%u, frame %u, %s</title></circle>\n", q + 1, g->frame[i],
                        shown(b, sizeof(b), m->value[i]));
            }
        }
        fputs("</g>\n", f);
    }
    fputs("</svg>\n<div class=\"wrap\"><table class=\"legend\"><thead><tr><th>Rendition</th>"
          "<th>values</th><th>points drawn</th>", f);
    for (int s = ST_MEAN; s < ST_NB; s++) fprintf(f, "<th>%s</th>", stat_label[s]);
    fputs("</tr></thead><tbody>\n", f);
    for (unsigned k = 0; k < r->rung_cnt; k++) {
        const Cell *c = cell_at(w, k, j);
        if (!c->m) continue;
        fprintf(f, "<tr data-rung=\"%u\"><td>", k);
        put_swatch(f, k);
        put_text(f, r->rung[k].name);
        fprintf(f, "</td><td>%u</td><td>%s</td>", c->finite,
                c->finite > VMAF_REPORT_MAX_POINTS ? "decimated" : "all");
        for (int s = ST_MEAN; s < ST_NB; s++) {
            char attrs[32];
            snprintf(attrs, sizeof(attrs), " data-s=\"%s\"", stat_key[s]);
            if (c->has[s]) put_value_cell(f, c->stat[s], attrs);
            else fprintf(f, "<td%s>\xe2\x80\x94</td>", attrs);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n</figure>\n", f);
}

static void put_worst(const Writer *w)
{
    FILE *f = w->f;
    const VmafReport *r = w->r;
    fputs("<section id=\"worst\"><h2>Worst frames: ", f);
    put_text(f, w->metric_cnt ? w->name[w->primary] : "none");
    fprintf(f, "</h2>\n<p class=\"note\">The %d lowest values of each rendition (ties: the "
            "earlier frame first); a frame number leads to its mark on the curve.</p>\n"
            "<div class=\"worstlists\">\n", VMAF_REPORT_WORST);
    for (unsigned k = 0; k < r->rung_cnt; k++) {
        const VmafReportRung *g = &r->rung[k];
        const Cell *c = w->metric_cnt ? cell_at(w, k, w->primary) : NULL;
        fprintf(f, "<div class=\"worstlist\" data-rung=\"%u\"><h3>", k);
        put_swatch(f, k);
        put_text(f, g->name);
        fputs("</h3>\n<table><thead><tr><th>#</th><th>Frame</th>", f);
        if (r->fps_den) fputs("<th>Time</th>", f);
        fputs("<th>Value</th></tr></thead><tbody>\n", f);
        for (unsigned q = 0; c && c->m && q < w->worst_cnt[k]; q++) {
            const unsigned i = w->worst[k][q];
            fprintf(f, "<tr data-rung=\"%u\" data-frame=\"%u\"><td>%u</td><td><a class=\"wl\" "
                    "href=\"#w%u-%u\">%u</a></td>", k, g->frame[i], q + 1, k, q + 1, g->frame[i]);
            if (r->fps_den) {
                char t[64];
                timecode(t, sizeof(t), r, g->frame[i]);
                fprintf(f, "<td>%s</td>", t);
            }
            put_value_cell(f, c->m->value[i], "");
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table></div>\n", f);
    }
    fputs("</div></section>\n", f);
}

static void put_rules(FILE *f)
{
    fprintf(f, "<section id=\"rules\"><h2>How it is drawn</h2><ul class=\"note\">\n"
            "<li>A curve of at most %d values is drawn whole. A longer one is cut into %d "
            "buckets of consecutive frames (bucket b holds values b&middot;n/%d to "
            "(b+1)&middot;n/%d of its n), each drawn by its minimum and its maximum in frame "
            "order, so every drop stays visible; the worst frames are drawn exactly. Frames "
            "whose value is not a number are not drawn.</li>\n"
            "<li>Mean, harmonic mean, minimum and maximum are the output file&#39;s pooled "
            "values. Percentiles are nearest-rank over the finite values: the p-th is the "
            "value of rank &lceil;p&middot;n/100&rceil; in ascending order.</li>\n"
            "<li>The worst frames are those of the first model score (else of the first "
            "metric). Time codes count from the first scored frame.</li>\n"
            "<li>Numbers in the page&#39;s attributes (curve points, data-v) are the scores "
            "exactly; the tables show 6 decimals.</li>\n</ul></section>\n",
            VMAF_REPORT_MAX_POINTS, VMAF_REPORT_BUCKETS, VMAF_REPORT_BUCKETS,
            VMAF_REPORT_BUCKETS);
}

static int put_report(FILE *f, void *arg)
{
    Writer *w = arg;
    const VmafReport *r = w->r;
    w->f = f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
    fputs("<meta name=\"generator\" content=\"Twin VMAF ", f);
    put_text(f, VMAF_LIBRARY_VERSION);
    fputs("\">\n<title>VMAF report: ", f);
    if (r->rung_cnt == 1) put_text(f, r->rung[0].name);
    else fprintf(f, "%u renditions", r->rung_cnt);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n", style);
    fprintf(f, "<body data-fps-num=\"%u\" data-fps-den=\"%u\">\n<h1>VMAF report</h1>\n",
            r->fps_den ? r->fps_num : 0, r->fps_den);
    fprintf(f, "<p class=\"note\">%u rendition%s, %u metric%s</p>\n", r->rung_cnt,
            r->rung_cnt == 1 ? "" : "s", w->metric_cnt, w->metric_cnt == 1 ? "" : "s");
    put_params(w);
    put_pooled_table(w);
    fputs("<section id=\"curves\"><h2>Per-frame scores</h2>\n", f);
    put_controls(w);
    for (unsigned o = 0; o < w->metric_cnt; o++) put_chart(w, w->order[o]);
    fputs("</section>\n", f);
    put_worst(w);
    put_rules(f);
    fprintf(f, "<div id=\"tip\"></div>\n<script>\n%s</script>\n</body>\n</html>\n", script);
    return 0;
}

int vmaf_report_write(const VmafReport *r, const char *path, const char *const *keep,
                      unsigned keep_cnt, enum VmafLogLevel log_level)
{
    if (!r || !path || !r->rung_cnt) return -EINVAL;
    Writer w = { .r = r };
    int err = prepare(&w);
    if (!err) err = vmaf_file_write(path, keep, keep_cnt, put_report, &w, log_level);
    release(&w);
    return err;
}
