package outfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestCommitPutsTheFileInPlace(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.txt")
	f, err := Create(name, Options{})
	require.NoError(t, err)
	_, err = f.Write([]byte("hello"))
	require.NoError(t, err)
	assert.NoFileExists(t, name, "nothing under the name before Commit")
	require.Len(t, entries(t, dir), 1, "the file being written")
	require.NoError(t, f.Commit())
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))
	assert.Equal(t, []string{"out.txt"}, entries(t, dir), "no temporary file left")
	assert.NoError(t, f.Commit(), "a second Commit does nothing")
	assert.NoError(t, f.Abort(), "nor does an Abort after it")
	assert.FileExists(t, name)
}

func TestExistingFileReplacedOnlyWhenComplete(t *testing.T) {
	for _, sync := range []bool{false, true} {
		dir := t.TempDir()
		name := filepath.Join(dir, "out.txt")
		require.NoError(t, os.WriteFile(name, []byte("old"), 0o640))

		f, err := Create(name, Options{Sync: sync})
		require.NoError(t, err)
		_, err = f.Write([]byte("half"))
		require.NoError(t, err)
		b, _ := os.ReadFile(name)
		assert.Equal(t, "old", string(b), "untouched while the new one is written")
		require.NoError(t, f.Abort())
		b, _ = os.ReadFile(name)
		assert.Equal(t, "old", string(b), "untouched after Abort")
		assert.Equal(t, []string{"out.txt"}, entries(t, dir))

		f, err = Create(name, Options{Sync: sync})
		require.NoError(t, err)
		_, err = f.Write([]byte("new"))
		require.NoError(t, err)
		require.NoError(t, f.Commit())
		b, _ = os.ReadFile(name)
		assert.Equal(t, "new", string(b))
		if runtime.GOOS != "windows" {
			st, err := os.Stat(name)
			require.NoError(t, err)
			assert.Equal(t, fs.FileMode(0o640), st.Mode().Perm(), "the replaced file's permissions are kept")
		}
	}
}

func TestSeekAndRewrite(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out.bin")
	f, err := Create(name, Options{})
	require.NoError(t, err)
	_, err = f.Write([]byte("abcdef"))
	require.NoError(t, err)
	_, err = f.Seek(1, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte("XY"))
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	b, _ := os.ReadFile(name)
	assert.Equal(t, "aXYdef", string(b))
}

func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(name, []byte("old"), 0o644))
	a, err := Create(name, Options{})
	require.NoError(t, err)
	b, err := Create(filepath.Join(dir, "other.txt"), Options{})
	require.NoError(t, err)
	_, err = a.Write([]byte("partial"))
	require.NoError(t, err)
	done, err := Create(filepath.Join(dir, "done.txt"), Options{})
	require.NoError(t, err)
	require.NoError(t, done.Commit())
	require.Len(t, entries(t, dir), 4)

	RemovePending()
	assert.ElementsMatch(t, []string{"out.txt", "done.txt"}, entries(t, dir))
	got, _ := os.ReadFile(name)
	assert.Equal(t, "old", string(got))
	_, err = b.Write([]byte("x"))
	assert.Error(t, err, "a removed file takes no more writes")
}

func TestCreateErrorsNameTheOutput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such.txt")
	_, err := Create(missing, Options{})
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, missing, pe.Path)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	_, err = Create(dir, Options{})
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, dir, pe.Path)
	assert.ErrorContains(t, err, "is a directory")
}

func TestSymlinkKeepsTheLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	f, err := Create(link, Options{})
	require.NoError(t, err)
	_, err = f.Write([]byte("new"))
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link is still a link")
	b, _ := os.ReadFile(target)
	assert.Equal(t, "new", string(b), "the file it points to is replaced")

	// A link to a file that is not there yet makes it, through a second
	// link and a relative path.
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.Symlink(filepath.Join("sub", "made.txt"), filepath.Join(dir, "dangling.txt")))
	require.NoError(t, os.Symlink("dangling.txt", filepath.Join(dir, "chain.txt")))
	f, err = Create(filepath.Join(dir, "chain.txt"), Options{})
	require.NoError(t, err)
	_, err = f.Write([]byte("made"))
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	b, _ = os.ReadFile(filepath.Join(sub, "made.txt"))
	assert.Equal(t, "made", string(b))
	for _, l := range []string{"dangling.txt", "chain.txt"} {
		st, err := os.Lstat(filepath.Join(dir, l))
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&fs.ModeSymlink, "%s is still a link", l)
	}
}

// A device is written in place: renaming a file over /dev/null would
// replace the device.
func TestDeviceWrittenInPlace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null")
	}
	f, err := Create(os.DevNull, Options{})
	require.NoError(t, err)
	_, err = f.Write([]byte("gone"))
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	st, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&fs.ModeCharDevice, "still a character device")
}

func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.etl")
	require.NoError(t, os.WriteFile(in, []byte("trace"), 0o644))
	other := filepath.Join(dir, "other.etl")
	require.NoError(t, os.WriteFile(other, []byte("trace"), 0o644))

	var ie *InputError
	require.ErrorAs(t, CheckNotInput(in, nil, other, in), &ie)
	assert.Equal(t, in, ie.Input)
	assert.EqualError(t, ie, in+": it is an input; write to another file")
	require.ErrorAs(t, CheckNotInput(filepath.Join(dir, ".", "in.etl"), nil, in), &ie, "another spelling")
	assert.NoError(t, CheckNotInput(other, nil, in))
	assert.NoError(t, CheckNotInput(filepath.Join(dir, "new.etl"), nil, in), "an output that does not exist")
	assert.NoError(t, CheckNotInput(in, nil, filepath.Join(dir, "missing.etl")))

	hard := filepath.Join(dir, "hard.etl")
	if err := os.Link(in, hard); err == nil {
		require.ErrorAs(t, CheckNotInput(hard, nil, in), &ie, "a hard link")
		assert.EqualError(t, ie, hard+": it is an input ("+in+"); write to another file")
	} else {
		t.Logf("no hard links here: %v", err)
	}
	soft := filepath.Join(dir, "soft.etl")
	if err := os.Symlink(in, soft); err == nil {
		require.ErrorAs(t, CheckNotInput(soft, nil, in), &ie, "a symbolic link")
		require.ErrorAs(t, CheckNotInput(in, nil, soft), &ie, "an input through a link")
	} else {
		t.Logf("no symbolic links here: %v", err)
	}

	stdin, err := os.Open(in)
	require.NoError(t, err)
	defer stdin.Close()
	require.ErrorAs(t, CheckNotInput(in, stdin, "-"), &ie)
	assert.EqualError(t, ie, in+": it is the file standard input reads; write to another file")
	assert.NoError(t, CheckNotInput(in, stdin, other), "stdin counts only when it is an input")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.NoError(t, CheckNotInput(in, r, "-"), "a pipe is no file")
	assert.NoError(t, CheckNotInput(in, nil, "-"))
}
