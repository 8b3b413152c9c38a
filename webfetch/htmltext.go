package webfetch

import (
	"strings"

	"golang.org/x/net/html"
)

// skipped are elements whose content is not text a reader sees.
var skipped = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"head": true, "iframe": true, "object": true,
}

// blocks are elements that start a new line.
var blocks = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true, "tr": true,
	"table": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"pre": true, "blockquote": true, "section": true, "article": true, "header": true,
	"footer": true, "nav": true, "main": true, "aside": true, "hr": true, "dt": true,
	"dd": true, "dl": true, "figure": true, "figcaption": true, "title": true, "form": true,
}

// htmlText returns the visible text of an HTML document: script, style and
// similar content dropped, blocks on their own lines, runs of spaces
// collapsed (except inside <pre>).
func htmlText(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	var sb strings.Builder
	skip, pre := 0, 0
	newline := func() {
		s := sb.String()
		if s != "" && !strings.HasSuffix(s, "\n") {
			sb.WriteByte('\n')
		}
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return tidyLines(sb.String())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if skipped[tag] && tt != html.SelfClosingTagToken {
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
				continue
			}
			if tag == "pre" {
				if tt == html.StartTagToken {
					pre++
				} else if tt == html.EndTagToken && pre > 0 {
					pre--
				}
			}
			if blocks[tag] {
				newline()
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := string(z.Text())
			if pre > 0 {
				sb.WriteString(text)
				continue
			}
			fields := strings.Fields(text)
			if len(fields) == 0 {
				if text != "" && !strings.HasSuffix(sb.String(), " ") && !strings.HasSuffix(sb.String(), "\n") && sb.Len() > 0 {
					sb.WriteByte(' ')
				}
				continue
			}
			if startsWithSpace(text) && sb.Len() > 0 && !strings.HasSuffix(sb.String(), " ") && !strings.HasSuffix(sb.String(), "\n") {
				sb.WriteByte(' ')
			}
			sb.WriteString(strings.Join(fields, " "))
			if endsWithSpace(text) {
				sb.WriteByte(' ')
			}
		}
	}
}

func startsWithSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[0])) }
func endsWithSpace(s string) bool {
	return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[len(s)-1]))
}

// tidyLines trims trailing spaces and collapses runs of blank lines.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}
