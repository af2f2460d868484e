package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/etlkit/etlkit/schema"
)

// LoadPaths reads manifests into one set, each as ParseWith reads it with
// opts. Each path is a manifest file, or a directory whose .man and .xml
// files, those of its subdirectories included, are read in the order of
// their paths.
//
// A file named on its own must be an instrumentation manifest: one that
// cannot be read, is not XML, is malformed or holds no provider is an
// error. In a directory such a file is passed over (opts.Warn is told
// why) and the others are read: a folder of manifests is used even when
// one of them is not. Where two manifests define the same event, the later
// one wins.
//
// The error joins those of every path, and the set holds what the others
// gave.
func LoadPaths(opts Options, paths ...string) (*schema.Set, error) {
	s := &schema.Set{}
	var errs []error
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !st.IsDir() {
			if err := loadFile(s, p, opts); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		found := false
		err = filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if path == p {
					return err
				}
				warn(opts, fmt.Errorf("%w; passed over", err))
				return nil
			}
			ext := filepath.Ext(e.Name())
			if e.IsDir() || !strings.EqualFold(ext, ".man") && !strings.EqualFold(ext, ".xml") {
				return nil
			}
			found = true
			if err := loadFile(s, path, opts); err != nil {
				warn(opts, fmt.Errorf("%w; the file is passed over", err))
			}
			return nil
		})
		switch {
		case err != nil:
			errs = append(errs, err)
		case !found:
			errs = append(errs, fmt.Errorf("%s: no .man or .xml file in the directory or below it", p))
		}
	}
	return s, errors.Join(errs...)
}

func warn(opts Options, err error) {
	if opts.Warn != nil {
		opts.Warn(err)
	}
}

// loadFile adds the providers of one manifest to s; nothing of a file that
// is refused.
func loadFile(s *schema.Set, path string, opts Options) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	provs, err := ParseWith(data, path, opts)
	if err != nil {
		return err
	}
	if len(provs) == 0 {
		return &Error{Source: path, Line: 1, Column: 1, Msg: "no <provider> in <events>: not an instrumentation manifest"}
	}
	for _, p := range provs {
		p.AddTo(s)
	}
	return nil
}
