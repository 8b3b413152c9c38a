package main

import (
	"bufio"
	"context"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentls/agentls/codeindex"
	"github.com/agentls/agentls/workspace"
)

// corpusLang is a language of the per-language table: its directory under
// the corpus root, its ctags name, its file extensions, its line comment
// (for the incremental edit) and the ctags kinds that are functions,
// methods and types (the recall's reference).
type corpusLang struct {
	name, ctags, comment string
	exts                 []string
	kinds                string
}

// Entries named AnonymousFunction… or __anon… (ctags' names for what has
// none) are left out, and so are JavaScript and TypeScript "class" entries
// on a line without the word class (ctags' kind for `x = {...}`), and
// TypeScript "alias" entries on an import line (`import { type X }`: ctags
// tags the imported name). A TypeScript interface whose `extends` starts
// the next line is looked for on the line above ctags' (ctags gives the
// line of extends). The kinds left out of the recall are not functions,
// methods or types:
// prototypes and extern declarations (declarations, not definitions;
// ctags lists them from headers), members, fields, properties, variables,
// constants, enumerators, macros, namespaces, packages, imports and
// labels. Rust's implementation entries are `impl` blocks, not types.
// Lua's function entries count only where the line defines that function
// (function a.n(, local function n(, n = function): ctags tags the name
// assigned on any line where the word function comes later (x =
// f(function() ... end), class = 'function'; JavaScript in a [[string]]
// still counts, a miss).
var corpusLangs = []corpusLang{
	{"go", "Go", "//", []string{".go"}, "func type struct interface talias"},
	{"c", "C", "//", []string{".c", ".h"}, "function struct union enum typedef"},
	{"cpp", "C++", "//", []string{".cc", ".cpp", ".hpp", ".h"}, "function class struct union enum typedef"},
	{"java", "Java", "//", []string{".java"}, "class interface enum method annotation record"},
	{"csharp", "C#", "//", []string{".cs"}, "class interface struct enum method record"},
	{"javascript", "JavaScript", "//", []string{".js", ".mjs", ".cjs"}, "function class method generator"},
	{"typescript", "TypeScript", "//", []string{".ts"}, "function class interface method enum alias"},
	{"tsx", "TypeScript", "//", []string{".tsx"}, "function class interface method enum alias"},
	{"rust", "Rust", "//", []string{".rs"}, "function method struct enum trait typedef union"},
	{"php", "PHP", "//", []string{".php"}, "function class interface trait enum"},
	{"python", "Python", "#", []string{".py"}, "class function member"},
	{"ruby", "Ruby", "#", []string{".rb"}, "class module method singletonMethod"},
	{"lua", "Lua", "--", []string{".lua"}, "function"},
}

// corpusRow is one language's measures.
type corpusRow struct {
	lang              corpusLang
	files             int
	bytes             int64
	ctags, ctagsCPU   time.Duration
	cold, coldCPU     time.Duration
	warm              time.Duration
	incr50, incr99    time.Duration
	incrCPU           time.Duration // p50 of the updating thread's CPU time
	incrFile          string
	found, want, skip int
	err               error
}

// runCorpus measures every language whose directory is under root (Go's
// tree when root has no go/) and prints the table.
func runCorpus(root string, runs int, only string, incrOnly bool) error {
	var rows []corpusRow
	for _, l := range corpusLangs {
		if only != "" && !slices.Contains(strings.Split(only, ","), l.name) {
			continue
		}
		dir := filepath.Join(root, l.name)
		if _, err := os.Stat(dir); err != nil {
			if l.name != "go" {
				continue
			}
			dir = filepath.Join(build.Default.GOROOT, "src")
		}
		measure := measureLang
		if incrOnly {
			measure = measureIncremental
		}
		r := measure(l, dir, runs)
		rows = append(rows, r)
		if r.err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", l.name, r.err)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("corpus %s, GOMAXPROCS %d, load average %s; medians of %d (ctags and cold builds taking turns); ratios to ctags -R --languages=L in the same run, of wall and of CPU (user+sys)\n",
		root, runtime.GOMAXPROCS(0), strings.Fields(string(load) + " ?")[0], runs)
	if incrOnly {
		fmt.Println("| language | edited file | incremental p50 / p99 | CPU p50 |")
		fmt.Println("| --- | --- | --- | --- |")
		for _, r := range rows {
			if r.err != nil {
				fmt.Printf("| %s | error: %v |\n", r.lang.name, r.err)
				continue
			}
			fmt.Printf("| %s | %s | %s / %s | %s |\n", r.lang.name, r.incrFile, ms(r.incr50), ms(r.incr99), ms(r.incrCPU))
		}
		return nil
	}
	fmt.Println("| language | files, MB | ctags wall (CPU) | cold wall (CPU) | cold/ctags wall | cold/ctags CPU | warm restart | warm/ctags | incremental p50 / p99 | recall (functions, methods, types) |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		if r.err != nil {
			fmt.Printf("| %s | error: %v |\n", r.lang.name, r.err)
			continue
		}
		recall := "—"
		if r.want > 0 {
			recall = fmt.Sprintf("%.3f (%d of %d)", float64(r.found)/float64(r.want), r.found, r.want)
		}
		incr := "—"
		if r.incr50 > 0 {
			incr = ms(r.incr50) + " / " + ms(r.incr99) + " (CPU " + ms(r.incrCPU) + ")"
		}
		fmt.Printf("| %s | %d, %.1f | %s (%s) | %s (%s) | %.2f× | %.2f× | %s | %.3f× | %s | %s |\n", r.lang.name, r.files, float64(r.bytes)/1e6,
			ms(r.ctags), ms(r.ctagsCPU), ms(r.cold), ms(r.coldCPU), ratio(r.cold, r.ctags), ratio(r.coldCPU, r.ctagsCPU), ms(r.warm), ratio(r.warm, r.ctags), incr, recall)
	}
	return nil
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

func measureLang(l corpusLang, dir string, runs int) (r corpusRow) {
	r.lang = l
	ctx := context.Background()
	ws, err := workspace.New(dir)
	if err != nil {
		r.err = err
		return r
	}
	tmp, err := os.MkdirTemp("", "agentls-bench-corpus")
	if err != nil {
		r.err = err
		return r
	}
	defer os.RemoveAll(tmp)
	tags := filepath.Join(tmp, "tags")
	ctagsPath, ctagsErr := exec.LookPath("ctags")
	var ix *codeindex.Index
	if profile != "" {
		stop, err := startProfile(profile + "." + l.name)
		if err != nil {
			r.err = err
			return r
		}
		defer stop()
	}
	// ctags and a cold build take turns, so that both see the same load;
	// the medians are kept.
	var ctagsWall, ctagsCPU, coldWall, coldCPU []time.Duration
	for i := range runs {
		if ctagsErr == nil {
			args := []string{"-R", "--languages=" + l.ctags, "-f", tags}
			if l.name == "tsx" { // ctags maps only .ts to TypeScript
				args = append(args, "--langmap=TypeScript:.tsx")
			}
			if i == 0 {
				args = append(args, "--excmd=number", "--fields=+K")
			}
			cmd := exec.Command(ctagsPath, append(args, dir)...)
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "Warning") {
				r.err = fmt.Errorf("ctags: %v: %s", err, out)
				return r
			}
			ctagsWall = append(ctagsWall, time.Since(t0))
			ctagsCPU = append(ctagsCPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			if i == 0 {
				os.Rename(tags, tags+".ref")
			}
		}
		if ix != nil {
			ix.Close()
		}
		ix = codeindex.New(ws, codeindex.Options{NoCache: true})
		t0, c0 := time.Now(), cpuTime()
		if err := ix.Build(ctx); err != nil {
			r.err = err
			return r
		}
		coldWall = append(coldWall, time.Since(t0))
		coldCPU = append(coldCPU, cpuTime()-c0)
	}
	r.ctags, r.ctagsCPU = pct(ctagsWall, 50), pct(ctagsCPU, 50)
	r.cold, r.coldCPU = pct(coldWall, 50), pct(coldCPU, 50)
	defer ix.Close()
	if ctagsErr == nil {
		r.found, r.want, r.skip = recall(ix, dir, tags+".ref", l)
	}
	// Warm restart: a build that saves the cache, then ones that load it.
	cacheDir := filepath.Join(tmp, "cache")
	w := codeindex.New(ws, codeindex.Options{CacheDir: cacheDir})
	if err := w.Build(ctx); err != nil {
		r.err = err
		return r
	}
	w.Close()
	var warm []time.Duration
	for range runs {
		w := codeindex.New(ws, codeindex.Options{CacheDir: cacheDir})
		t0 := time.Now()
		if err := w.Build(ctx); err != nil {
			r.err = err
			return r
		}
		warm = append(warm, time.Since(t0))
		w.Close()
	}
	r.warm = pct(warm, 50)
	st := ix.Status()
	r.files = st.Languages[l.name]
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && slices.Contains(l.exts, filepath.Ext(p)) && fi.Size() <= 1<<20 {
			r.bytes += fi.Size()
		}
		return nil
	})
	r.incr50, r.incr99, r.incrCPU, r.incrFile, r.err = incremental(ix, l, dir)
	return r
}

// measureIncremental measures only the incremental update, on an index
// that was not built (a buffer needs none).
func measureIncremental(l corpusLang, dir string, runs int) (r corpusRow) {
	r.lang = l
	ws, err := workspace.New(dir)
	if err != nil {
		r.err = err
		return r
	}
	ix := codeindex.New(ws, codeindex.Options{NoCache: true})
	defer ix.Close()
	if profile != "" {
		stop, err := startProfile(profile + "." + l.name + ".incr")
		if err != nil {
			r.err = err
			return r
		}
		defer stop()
	}
	r.incr50, r.incr99, r.incrCPU, r.incrFile, r.err = incremental(ix, l, dir)
	return r
}

// incremental inserts a one-line comment in the middle of the language's
// largest file under 1 MiB, open as a buffer, -updates times (its text
// differing every time), and returns the update's p50 and p99.
func incremental(ix *codeindex.Index, l corpusLang, dir string) (p50, p99, cpu50 time.Duration, file string, err error) {
	big, text := largest(dir, l.exts)
	if big == "" {
		return 0, 0, 0, "", nil
	}
	if err := ix.UpdateBuffer(big, 1, text); err != nil {
		return 0, 0, 0, "", err
	}
	defer ix.CloseBuffer(big)
	lines := strings.SplitAfter(text, "\n")
	var ds, cpu []time.Duration
	// The update runs on this goroutine: its thread's CPU time is the
	// update's, whatever else the machine runs.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range updates {
		edited := slices.Clone(lines)
		edited[len(lines)/2] = fmt.Sprintf("%s edit %d\n", l.comment, i) + edited[len(lines)/2]
		next := strings.Join(edited, "")
		t0, c0 := time.Now(), threadCPU()
		if err := ix.UpdateBuffer(big, int32(i+2), next); err != nil {
			return 0, 0, 0, "", err
		}
		ds = append(ds, time.Since(t0))
		cpu = append(cpu, threadCPU()-c0)
	}
	return pct(ds, 50), pct(ds, 99), pct(cpu, 50), fmt.Sprintf("%s (%d lines)", relTo(dir, big), len(lines)), nil
}

// missFile, when set (-misses), gets the ctags entries the recall misses.
var missFile *os.File

// recall counts the ctags entries of the kinds of l (name, path, line)
// that the index has; entries in files the index skips (over 1 MiB,
// minified, binary) are left out of both counts.
func recall(ix *codeindex.Index, dir, tags string, l corpusLang) (found, want, skipped int) {
	type key struct {
		name, path string
		line       int
	}
	have := map[key]bool{}
	for _, s := range ix.Definitions() {
		have[key{s.Name, s.Path, int(s.NameRange.Start.Line) + 1}] = true
	}
	kinds := strings.Fields(l.kinds)
	f, err := os.Open(tags)
	if err != nil {
		return 0, 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 4 || strings.HasPrefix(fields[0], "!_") || !slices.Contains(kinds, fields[3]) {
			continue
		}
		name := fields[0]
		if strings.HasPrefix(name, "AnonymousFunction") || strings.HasPrefix(name, "__anon") {
			continue // ctags' placeholder for a function without a name
		}
		ts := l.name == "javascript" || l.name == "typescript" || l.name == "tsx"
		if ts && fields[3] == "class" && !lineHas(fields[1], fields[2], "class") {
			continue // ctags calls an object literal assigned to a name a class
		}
		if ts && fields[3] == "alias" && importedType(lineOf(fields[1], fields[2])) {
			continue // import { type X }: ctags' alias for an imported name
		}
		if l.name == "lua" && strings.Contains(name, "[") {
			continue // M[k] = function, ["x.y"] = function: computed keys, no name
		}
		if l.name == "lua" { // ctags names M.f and M:f by their path; the index f in M
			name = name[strings.LastIndexAny(name, ".:")+1:]
			if !luaDefines(lineOf(fields[1], fields[2]), name) {
				continue // x = f(function() ... end), class = 'function': ctags' guess
			}
		}
		name = strings.ReplaceAll(name, "operator ", "operator") // C++: "operator ()"
		rel, err := filepath.Rel(dir, fields[1])
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		line, _ := strconv.Atoi(strings.TrimSuffix(fields[2], `;"`))
		if ts && fields[3] == "interface" && strings.HasPrefix(strings.TrimSpace(lineOf(fields[1], fields[2])), "extends") {
			line-- // interface X⏎ extends Y: ctags gives the line of extends
		}
		if fi, err := os.Stat(fields[1]); err == nil && fi.Size() > 1<<20 {
			skipped++
			continue
		}
		want++
		if have[key{name, rel, line}] {
			found++
		} else if missFile != nil {
			fmt.Fprintf(missFile, "%s\t%s:%d\t%s\t%s\n", l.name, rel, line, fields[3], name)
		}
	}
	return found, want, skipped
}

// largest returns the file of exts with the most lines under 1 MiB.
func largest(dir string, exts []string) (string, string) {
	best, bestText, bestN := "", "", 0
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !slices.Contains(exts, filepath.Ext(p)) || fi.Size() > 1<<20 || strings.Contains(p, "testdata") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if n := strings.Count(string(b), "\n"); n > bestN && n <= 20000 {
			best, bestText, bestN = p, string(b), n
		}
		return nil
	})
	return best, bestText
}

// luaFunc matches how Lua defines a function on a line: function a.b:n(,
// local function n(, n = function, ["n"] = function.
var luaFunc = regexp.MustCompile(`\bfunction\s+(?:[\w.]+[.:])?(\w+)\s*\(|(\w+)["']?\]?\s*=\s*function\b`)

// luaDefines reports whether line defines function name. ctags' Lua
// parser tags the name assigned on any line where the word function
// follows (a call taking a callback, a string): those are not definitions.
func luaDefines(line, name string) bool {
	for _, m := range luaFunc.FindAllStringSubmatch(line, -1) {
		if m[1] == name || m[2] == name {
			return true
		}
	}
	return false
}

var lineCache = map[string][]string{}

// lineOf returns line n (1-based, as ctags writes "12;\"") of file.
func lineOf(file, n string) string {
	lines, ok := lineCache[file]
	if !ok {
		b, _ := os.ReadFile(file)
		lines = strings.Split(string(b), "\n")
		lineCache[file] = lines
	}
	i, _ := strconv.Atoi(strings.TrimSuffix(n, `;"`))
	if i < 1 || i > len(lines) {
		return ""
	}
	return lines[i-1]
}

// importedTypeRE matches a line of a multi-line import list that names a type.
var importedTypeRE = regexp.MustCompile(`^\s*type\s+[\w$]+\s*(as\s+[\w$]+\s*)?[,}]`)

// importedType reports whether a TypeScript line imports names rather than
// defines a type: an import line, or one entry of an import list.
func importedType(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "import") || importedTypeRE.MatchString(line)
}

// lineHas reports whether line n (1-based, as ctags writes "12;\"") of
// file holds word.
func lineHas(file, n, word string) bool {
	return strings.Contains(lineOf(file, n), word)
}

// threadCPU is the CPU time of the calling thread so far.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
