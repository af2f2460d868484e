// Package outfile writes the files a command produces so that no input is
// ever overwritten and no half-written file is ever left under the name
// asked for.
//
// CheckNotInput refuses an output that is one of the inputs: the same file
// by device and inode (file index on Windows), however it is named, through
// symbolic or hard links, or the file standard input reads. It is to be
// called before anything is opened for writing, for every output.
//
// Create writes into a new file beside the final one, which Commit renames
// into place once it is complete (on Windows as on Unix, a rename within a
// directory replaces the old file at once). Until then a file that was
// there is untouched; Abort, an error or a crash leaves it as it was.
// RemovePending is for a handler of interrupts: it removes the files being
// written, so that Ctrl-C leaves nothing behind.
package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// InputError refuses an output that is an input.
type InputError struct {
	Output string
	// Input is the input's name as given; "-" is standard input.
	Input string
}

func (e *InputError) Error() string {
	if e.Input == "-" {
		return fmt.Sprintf("%s: it is the file standard input reads; write to another file", e.Output)
	}
	if e.Input == e.Output {
		return fmt.Sprintf("%s: it is an input; write to another file", e.Output)
	}
	return fmt.Sprintf("%s: it is an input (%s); write to another file", e.Output, e.Input)
}

// CheckNotInput returns an *InputError when output is the same file as one
// of inputs. The input "-" stands for stdin, when it is a file (a pipe or
// a terminal cannot be written to by name). An output that does not exist
// yet is no input; inputs that cannot be looked at are passed over, as
// they cannot be read either.
func CheckNotInput(output string, stdin *os.File, inputs ...string) error {
	out, err := os.Stat(output)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		var st os.FileInfo
		if in == "-" {
			if stdin == nil {
				continue
			}
			st, err = stdin.Stat()
		} else {
			st, err = os.Stat(in)
		}
		if err == nil && os.SameFile(out, st) {
			return &InputError{Output: output, Input: in}
		}
	}
	return nil
}

// Options tunes Create.
type Options struct {
	// Sync writes the file to stable storage before Commit renames it, so
	// that a crash of the system, not only of the process, cannot leave a
	// file under the final name whose data never reached the disk. It
	// costs the time the disk takes.
	Sync bool
}

// File is an output being written. Its methods are not safe for use by
// several goroutines at a time, but RemovePending may run beside them.
type File struct {
	f    *os.File
	name string // where Commit puts it
	temp string // the file written, "" when writing in place
	sync bool
	done bool
}

// Create starts the output name. The data goes to a new file in the same
// directory, made with the permissions os.Create gives (or those of the
// file it is to replace); Commit renames it to name. When name is a
// symbolic link, the file it points to is replaced and the link kept.
// When name is not a regular file (a device such as /dev/null, a named
// pipe), it is written in place, as nothing can be renamed over it.
//
// An error is an *fs.PathError naming name.
func Create(name string, opts Options) (*File, error) {
	target := resolveLinks(name)
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return nil, &fs.PathError{Op: "create", Path: name, Err: errors.New("is a directory")}
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, renamed(err, name)
		}
		return &File{f: f, name: target}, nil
	}
	dir, base := filepath.Split(target)
	for range 100 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, &fs.PathError{Op: "create", Path: name, Err: err}
		}
		temp := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(temp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, renamed(err, name)
		}
		if st != nil {
			// Replacing a file keeps who may read it.
			f.Chmod(st.Mode().Perm())
		}
		out := &File{f: f, name: target, temp: temp, sync: opts.Sync}
		pending.add(out)
		return out, nil
	}
	return nil, &fs.PathError{Op: "create", Path: name, Err: errors.New("no free name for a temporary file")}
}

// resolveLinks follows name while it is a symbolic link, to the file it
// points to, which need not exist yet (as os.Create would make it).
func resolveLinks(name string) string {
	for range 40 { // as many links as Linux follows
		st, err := os.Lstat(name)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return name
		}
		to, err := os.Readlink(name)
		if err != nil {
			return name
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(name), to)
		}
		name = to
	}
	return name
}

// renamed gives err the output's name in place of the file the system
// named.
func renamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// Name is the name the file gets at Commit.
func (f *File) Name() string { return f.name }

// File is the open file being written, for what needs more than Write and
// Seek. It must not be closed.
func (f *File) File() *os.File { return f.f }

func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

func (f *File) Seek(offset int64, whence int) (int64, error) { return f.f.Seek(offset, whence) }

// Commit closes the file and puts it under its name, in place of the file
// that was there. When that fails, nothing is left of the new file.
// Calling Commit or Abort again does nothing.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.temp == "" {
		return renamed(f.f.Close(), f.name)
	}
	defer pending.remove(f)
	var err error
	if f.sync {
		err = f.f.Sync()
	}
	err = errors.Join(err, f.f.Close())
	if err == nil {
		err = os.Rename(f.temp, f.name)
	}
	if err != nil {
		os.Remove(f.temp)
		return renamed(err, f.name)
	}
	return nil
}

// Abort closes the file and removes what was written; the file under the
// name stays as it was. Written in place, the output keeps what it got.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.f.Close()
	if f.temp != "" {
		pending.remove(f)
		if rerr := os.Remove(f.temp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// pendingFiles are the files being written, for RemovePending.
type pendingFiles struct {
	mu    sync.Mutex
	files map[*File]struct{}
}

var pending pendingFiles

func (p *pendingFiles) add(f *File) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files == nil {
		p.files = map[*File]struct{}{}
	}
	p.files[f] = struct{}{}
}

func (p *pendingFiles) remove(f *File) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.files, f)
}

// RemovePending closes and removes every file that Create made and that
// was neither committed nor aborted: a handler of interrupts calls it
// before the process exits. The files under the final names are not
// touched. The Files it closes fail from then on.
func RemovePending() {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	for f := range pending.files {
		// Closing first: Windows removes no open file.
		f.f.Close()
		os.Remove(f.temp)
	}
	clear(pending.files)
}
