/*
 * report_svg.c - the report's escaping and its charts: inline SVG written
 * as text, sized by a viewBox so that the page's width scales it, coloured
 * by CSS classes so that dark mode recolours it.
 */
#include "callus/report.h"
#include "callus/utf8.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The length of the valid UTF-8 character at s (n bytes left), 0 when
 * there is none there. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	return len <= n && callus_utf8_valid((const char *)s, len) ? len : 0;
}

int callus_report_escape(callus_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < len) {
		const char *ref = NULL;
		size_t n = utf8_char(p + i, len - i);

		if (n == 1) {
			switch (p[i]) {
			case '&':
				ref = "&amp;";
				break;
			case '<':
				ref = "&lt;";
				break;
			case '>':
				ref = "&gt;";
				break;
			case '"':
				ref = "&quot;";
				break;
			case '\'':
				ref = "&#39;";
				break;
			case '\t':
			case '\n':
				break;
			default:
				if (p[i] < 0x20 || p[i] == 0x7f)
					ref = "\xef\xbf\xbd";
			}
		} else if (n == 0) {
			ref = "\xef\xbf\xbd";
			n = 1;
		} else if (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0) {
			ref = "\xef\xbf\xbd"; /* C1 controls */
		}
		if (ref) {
			callus_buf_put(out, s + i - run, run);
			callus_buf_puts(out, ref);
			run = 0;
		} else {
			run += n;
		}
		i += n;
	}
	callus_buf_put(out, s + len - run, run);
	return callus_buf_status(out);
}

int callus_report_escape_cut(callus_buf *out, const char *s, size_t max)
{
	size_t len = s ? strlen(s) : 0, keep;

	if (len <= max)
		return callus_report_escape(out, s ? s : "", len);
	keep = callus_utf8_valid(s, len) ? callus_utf8_cut(s, len, max) : max;
	callus_report_escape(out, s, keep);
	callus_buf_puts(out, "...");
	return callus_buf_status(out);
}

/* The chart's frame, in viewBox units. */
#define W 640.0
#define H 220.0
#define LEFT 52.0
#define RIGHT 8.0
#define TOP 10.0
#define BOTTOM 26.0
#define MAX_SERIES 8
#define MAX_XLABELS 7

/* A round number at least m: 1, 2 or 5 times a power of ten. */
static double nice_ceil(double m)
{
	double p, f;

	if (m <= 0)
		return 1;
	p = pow(10, floor(log10(m)));
	f = m / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static double value(const callus_chart *c, size_t s, size_t i)
{
	double v = c->series[s].values[i];

	return isfinite(v) ? v : -1;
}

static void axis(callus_buf *out, const callus_chart *c, double ymax)
{
	const double ph = H - TOP - BOTTOM;
	size_t step = (c->n + MAX_XLABELS - 1) / MAX_XLABELS;

	for (int k = 0; k <= 4; k++) {
		double y = TOP + ph - ph * k / 4.0, v = ymax * k / 4.0;

		callus_buf_printf(out,
				  "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
				  "x2=\"%.1f\" y2=\"%.1f\"/>",
				  LEFT, y, W - RIGHT, y);
		callus_buf_printf(
		    out, "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		    LEFT - 4, y + 4);
		if (c->percent)
			callus_buf_printf(out, "%.0f%%", v);
		else
			callus_buf_printf(out, "%g", v);
		callus_buf_puts(out, "</text>");
	}
	if (!step)
		step = 1;
	for (size_t i = 0; i < c->n; i += step) {
		double slot = (W - LEFT - RIGHT) / (double)c->n;

		callus_buf_printf(
		    out,
		    "<text class=\"ax\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		    LEFT + slot * ((double)i + 0.5), H - 8);
		callus_report_escape_cut(out, c->labels[i], 16);
		callus_buf_puts(out, "</text>");
	}
}

static void bars(callus_buf *out, const callus_chart *c, size_t ns, double ymax)
{
	const double ph = H - TOP - BOTTOM, slot = (W - LEFT - RIGHT) / (double)c->n;
	const double bw = slot * 0.72 > 1 ? slot * 0.72 : 1;

	for (size_t i = 0; i < c->n; i++) {
		double base = 0;

		for (size_t s = 0; s < ns; s++) {
			double v = value(c, s, i), h;

			if (v <= 0)
				continue;
			h = ph * v / ymax;
			callus_buf_printf(out,
					  "<rect class=\"c%zu\" x=\"%.1f\" y=\"%.1f\" "
					  "width=\"%.1f\" height=\"%.1f\"><title>",
					  s, LEFT + slot * (double)i + (slot - bw) / 2,
					  TOP + ph - base - h, bw, h);
			callus_report_escape_cut(out, c->series[s].name, 60);
			callus_buf_puts(out, ", ");
			callus_report_escape_cut(out, c->labels[i], 30);
			callus_buf_printf(out, ": %g</title></rect>", v);
			base += h;
		}
	}
}

static void lines(callus_buf *out, const callus_chart *c, size_t ns, double ymax)
{
	const double ph = H - TOP - BOTTOM, slot = (W - LEFT - RIGHT) / (double)c->n;

	for (size_t s = 0; s < ns; s++) {
		int open = 0;

		for (size_t i = 0; i < c->n; i++) {
			double v = value(c, s, i);

			if (v < 0) {
				if (open)
					callus_buf_puts(out, "\"/>");
				open = 0;
				continue;
			}
			if (!open)
				callus_buf_printf(
				    out, "<polyline class=\"l%zu\" points=\"", s);
			callus_buf_printf(out, "%s%.1f,%.1f", open ? " " : "",
					  LEFT + slot * ((double)i + 0.5),
					  TOP + ph - ph * v / ymax);
			open = 1;
		}
		if (open)
			callus_buf_puts(out, "\"/>");
		/* A point for each value, so that a lone one shows and each has
		 * its figure on hover. */
		for (size_t i = 0; i < c->n; i++) {
			double v = value(c, s, i);

			if (v < 0)
				continue;
			callus_buf_printf(out,
					  "<circle class=\"c%zu\" cx=\"%.1f\" "
					  "cy=\"%.1f\" r=\"3\"><title>",
					  s, LEFT + slot * ((double)i + 0.5),
					  TOP + ph - ph * v / ymax);
			callus_report_escape_cut(out, c->series[s].name, 60);
			callus_buf_puts(out, ", ");
			callus_report_escape_cut(out, c->labels[i], 30);
			callus_buf_printf(out,
					  c->percent ? ": %.0f%%</title></circle>"
						     : ": %g</title></circle>",
					  v);
		}
	}
}

int callus_report_chart(callus_buf *out, const callus_chart *c)
{
	size_t ns = c->nseries < MAX_SERIES ? c->nseries : MAX_SERIES;
	double ymax = 0;

	for (size_t i = 0; i < c->n; i++) {
		double sum = 0;

		for (size_t s = 0; s < ns; s++) {
			double v = value(c, s, i);

			if (v < 0)
				continue;
			if (c->kind == CALLUS_CHART_BARS)
				sum += v;
			else if (v > sum)
				sum = v;
		}
		if (sum > ymax)
			ymax = sum;
	}
	/* Four steps of a round size, whole for counts. */
	ymax = c->percent ? 100 : 4 * nice_ceil(ymax / 4 < 1 ? 1 : ymax / 4);
	callus_buf_puts(out, "<figure class=\"chart\"><h3>");
	callus_report_escape_cut(out, c->title, 200);
	callus_buf_puts(out, "</h3><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 "
			     "0 640 220\" role=\"img\" aria-label=\"");
	callus_report_escape_cut(out, c->title, 200);
	callus_buf_puts(out, "\"><title>");
	callus_report_escape_cut(out, c->title, 200);
	callus_buf_puts(out, "</title>");
	if (c->n) {
		axis(out, c, ymax);
		if (c->kind == CALLUS_CHART_BARS)
			bars(out, c, ns, ymax);
		else
			lines(out, c, ns, ymax);
	}
	callus_buf_puts(out, "</svg><figcaption>");
	for (size_t s = 0; s < ns; s++) {
		callus_buf_printf(out, "<span class=\"key\"><i class=\"k%zu\"></i>", s);
		callus_report_escape_cut(out, c->series[s].name, 60);
		callus_buf_puts(out, "</span> ");
	}
	callus_buf_puts(out, "</figcaption></figure>\n");
	return callus_buf_status(out);
}
