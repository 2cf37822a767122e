package llm

import "strings"

// StyleKeys are the style fields StyleDirective renders, in output order.
var StyleKeys = []string{"verbosity", "tone", "formality", "humor", "explanation_depth"}

const maxStyleValue = 40

// StyleDirective renders confirmed style values as one system-prompt line,
// for example "Style guidance: keep answers brief (verbosity: low); tone:
// direct; formality: casual." Keys may be bare ("tone") or dotted
// ("style.tone"); only StyleKeys are used, in that order, so the output is
// stable; other keys are ignored. Values are cleaned and clipped to 40
// runes. No usable values gives "".
//
// The caller guarantees the values are confirmed (never pending review) and
// scanned; this function only formats.
func StyleDirective(style map[string]string) string {
	vals := map[string]string{}
	for k, v := range style {
		k = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(k)), "style.")
		if v = cleanText(v, maxStyleValue); v != "" {
			vals[k] = strings.TrimRight(v, ".;")
		}
	}
	var parts []string
	for _, k := range StyleKeys {
		v, ok := vals[k]
		if !ok || v == "" {
			continue
		}
		label := strings.ReplaceAll(k, "_", " ")
		if hint := styleHint(k, strings.ToLower(v)); hint != "" {
			parts = append(parts, hint+" ("+label+": "+v+")")
		} else {
			parts = append(parts, label+": "+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Style guidance: " + strings.Join(parts, "; ") + "."
}

func styleHint(key, v string) string {
	switch key {
	case "verbosity":
		switch v {
		case "low", "brief", "terse", "minimal", "short", "concise":
			return "keep answers brief"
		case "high", "verbose", "detailed", "long":
			return "give detailed answers"
		case "medium", "moderate", "normal":
			return "keep answers moderately detailed"
		}
	case "explanation_depth":
		switch v {
		case "low", "shallow", "minimal", "brief":
			return "explain only what is needed"
		case "high", "deep", "detailed", "thorough":
			return "explain in depth"
		}
	}
	return ""
}
