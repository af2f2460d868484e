package perfview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/etlkit/etlkit/payload"
)

// TraceEvent's printing, which the agreement undoes:
//   - integers with thousands separators, negative when the signed reading
//     is (so -1 for all-ones, of 32 or 64 bits), or as 0x-hex with leading
//     zeros;
//   - floats rounded to 15 significant digits, then to the decimals printed
//     (3 for its doubles), halves away from zero, with separators;
//   - strings and long numbers cut at 20 characters with "...";
//   - times as yy/MM/dd HH:mm:ss.fff;
//   - True and False;
//   - a mapped value by its name.

// PrintedAs reports whether TraceEvent would print our value v as want.
// v's text (AppendText) shows a mapped value's name.
func PrintedAs(v payload.Value, want string) bool {
	text := string(v.AppendText(nil))
	cut, truncated := strings.CutSuffix(want, "...")
	if truncated && strings.HasPrefix(text, cut) || !truncated && text == want {
		return true
	}
	switch v.Kind() {
	case payload.KindBool:
		return want == "True" && v.Bool() || want == "False" && !v.Bool()
	case payload.KindFloat:
		return !truncated && floatPrintedAs(v.Float(), want)
	case payload.KindInt, payload.KindUint:
		if tm := v.Time(); !tm.IsZero() {
			return timePrintedAs(tm, want)
		}
		return intPrintedAs(v.Uint(), want)
	case payload.KindTime:
		return timePrintedAs(v.Time(), want)
	}
	return false
}

// intPrintedAs reports whether the integer u (or its low 32 bits, signed)
// prints as want.
func intPrintedAs(u uint64, want string) bool {
	cut, truncated := strings.CutSuffix(want, "...")
	if truncated {
		// A long number cut at 20 characters: its digits so far.
		for _, f := range []string{Thousands(strconv.FormatUint(u, 10)), Thousands(strconv.FormatInt(int64(u), 10))} {
			if strings.HasPrefix(f, cut) {
				return true
			}
		}
		return false
	}
	if h, ok := strings.CutPrefix(strings.ToLower(want), "0x"); ok {
		n, err := strconv.ParseUint(h, 16, 64)
		return err == nil && (n == u || n == u&math.MaxUint32 && narrow(u))
	}
	s := strings.ReplaceAll(want, ",", "")
	var x uint64
	if strings.HasPrefix(s, "-") {
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return false
		}
		x = uint64(i)
	} else {
		var err error
		if x, err = strconv.ParseUint(s, 10, 64); err != nil {
			return false
		}
	}
	return x == u || uint32(x) == uint32(u) && narrow(x) && narrow(u)
}

// narrow reports whether y is a 32-bit value, sign-extended or not.
func narrow(y uint64) bool { return y>>32 == 0 || y>>32 == math.MaxUint32 }

// floatPrintedAs reports whether f prints as want: TraceEvent rounds to
// 15 significant digits, then to the decimals it prints.
func floatPrintedAs(f float64, want string) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	decimals := 0
	if i := strings.IndexByte(want, '.'); i >= 0 {
		decimals = len(want) - i - 1
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'e', 14, 64))
	if !ok {
		return false
	}
	s := roundHalfAway(r, decimals)
	return Thousands(s) == want || s == strings.ReplaceAll(want, ",", "")
}

// roundHalfAway formats r with the given decimals, halves away from zero.
func roundHalfAway(r *big.Rat, decimals int) string {
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	x := new(big.Rat).Mul(r, scale)
	half := big.NewRat(1, 2)
	if x.Sign() < 0 {
		x.Sub(x, half)
	} else {
		x.Add(x, half)
	}
	q := new(big.Int).Quo(x.Num(), x.Denom()) // truncates toward zero
	return new(big.Rat).SetFrac(q, scale.Num()).FloatString(decimals)
}

func timePrintedAs(tm time.Time, want string) bool {
	cut, _ := strings.CutSuffix(want, "...")
	ours := tm.UTC().Format("06/01/02 15:04:05.0000000")
	return len(cut) >= len("06/01/02 15:04:05") && strings.HasPrefix(ours, cut)
}

// Thousands puts TraceEvent's separators into a decimal number.
func Thousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// ValueAgree is the Agree of fields held as decoded values, keyed by the
// field's name.
func ValueAgree(name, want string, fields map[string]payload.Value) (bool, string) {
	v, ok := fields[name]
	if !ok {
		return false, ""
	}
	if PrintedAs(v, want) {
		return true, ""
	}
	ours := v.String()
	if ours == "" {
		ours = `""`
	}
	return false, ours
}

// ValueFields keys decoded values by name, cloned so that they outlive
// the decoding.
func ValueFields(vals []payload.Value) map[string]payload.Value {
	m := make(map[string]payload.Value, len(vals))
	for _, v := range vals {
		if _, seen := m[v.Name()]; !seen {
			m[v.Name()] = v.Clone()
		}
	}
	return m
}

// JSONAgree is the Agree of fields read from etldump's jsonl Payload
// (decoded with json.Decoder.UseNumber), keyed by the lower-cased field
// name. A mapped value may be its name, or a number with the name beside
// it under a longer key that starts with the field's name (FlagsName).
func JSONAgree(name, want string, fields map[string]any) (bool, string) {
	kl := strings.ToLower(name)
	v, has := fields[kl]
	var cands []any
	if has {
		cands = append(cands, v)
	}
	for k, pv := range fields {
		if s, ok := pv.(string); ok && k != kl && strings.HasPrefix(k, kl) {
			cands = append(cands, s)
		}
	}
	for _, c := range cands {
		if JSONPrintedAs(c, want) {
			return true, ""
		}
	}
	if !has {
		return false, ""
	}
	ours := fmt.Sprint(v)
	if ours == "" {
		ours = `""`
	}
	return false, ours
}

var dateText = regexp.MustCompile(`^(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+)`)

// JSONPrintedAs reports whether a JSON value of ours prints as TraceEvent's
// text want.
func JSONPrintedAs(ov any, want string) bool {
	switch ov.(type) {
	case map[string]any, []any:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(ov) != nil {
			return false
		}
		ov = strings.TrimSuffix(b.String(), "\n")
	}
	if bo, ok := ov.(bool); ok {
		return strings.EqualFold(want, strconv.FormatBool(bo))
	}
	if n, ok := ov.(json.Number); ok && (want == "True" || want == "False") && (n == "0" || n == "1") {
		return strings.EqualFold(want, strconv.FormatBool(n == "1"))
	}
	cut, truncated := strings.CutSuffix(want, "...")
	var o string
	switch x := ov.(type) {
	case string:
		o = x
	case json.Number:
		o = x.String()
	default:
		o = fmt.Sprint(x)
	}
	if truncated && strings.HasPrefix(strings.ToLower(o), strings.ToLower(cut)) || !truncated && strings.EqualFold(o, want) {
		return true
	}
	// A number, as a JSON number or as a string of our hex.
	if i, ok := jsonInteger(o); ok {
		return intPrintedAs(i, want)
	}
	if f, err := strconv.ParseFloat(o, 64); err == nil && !truncated {
		return floatPrintedAs(f, want)
	}
	if m := dateText.FindStringSubmatch(cut); m != nil && len(o) >= 20 && o[4] == '-' && o[10] == 'T' {
		return o[2:19] == fmt.Sprintf("%s-%s-%sT%s:%s:%s", m[1], m[2], m[3], m[4], m[5], m[6]) && strings.HasPrefix(o[20:], m[7])
	}
	return false
}

// jsonInteger reads an integer as etldump writes one: decimal, or 0x-hex.
func jsonInteger(s string) (uint64, bool) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		u, err := strconv.ParseUint(h, 16, 64)
		return u, err == nil
	}
	if strings.HasPrefix(s, "-") {
		i, err := strconv.ParseInt(s, 10, 64)
		return uint64(i), err == nil
	}
	u, err := strconv.ParseUint(s, 10, 64)
	return u, err == nil
}
