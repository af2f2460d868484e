package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/etlkit/etlkit/schema"
)

// LoadPaths reads manifests into one set. Each path is a manifest file, or
// a directory whose .man and .xml files (not those of its subdirectories)
// are read in name order. A file named on its own must hold a provider; in
// a directory, XML files without one are passed over. Where two manifests
// define the same event, the later one wins.
func LoadPaths(paths ...string) (*schema.Set, error) {
	s := &schema.Set{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if err := loadFile(s, p, true); err != nil {
				return nil, err
			}
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		found := false
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if e.IsDir() || !strings.EqualFold(ext, ".man") && !strings.EqualFold(ext, ".xml") {
				continue
			}
			found = true
			if err := loadFile(s, filepath.Join(p, e.Name()), false); err != nil {
				return nil, err
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: no .man or .xml file in the directory", p)
		}
	}
	return s, nil
}

func loadFile(s *schema.Set, path string, must bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	provs, err := Parse(data, path)
	if err != nil {
		return err
	}
	if len(provs) == 0 && must {
		return &Error{Source: path, Line: 1, Column: 1, Msg: "no <provider> in <events>: not an instrumentation manifest"}
	}
	for _, p := range provs {
		p.AddTo(s)
	}
	return nil
}
