/*
 * mdtext.h - what the Markdown files callus writes (lessonmd.c, notemd.c)
 * share about text taken from a tool's output: where it could open raw
 * HTML, which a renderer (a forge's, an editor's preview) would run as
 * markup: an image fetched from anywhere, a <details> left open.
 */
#ifndef CALLUS_MDTEXT_H
#define CALLUS_MDTEXT_H

/* Could '<' followed by c open raw HTML (a tag, comment, declaration or
 * processing instruction)? */
static inline int callus_md_opens_html(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '!' ||
	       c == '?';
}

#endif
