package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Temporary names. Every temporary file or folder driftkit creates inside a
// workspace is called ".<base>.tmp-<owner>-<random>", where <owner> names the
// process that made it (its pid, its start time and the boot it runs in).
// A later run removes temporaries whose owner is gone — a killed run's
// leftovers — without touching those of a run still going on beside it
// (a pid alone could have been reused by then; pid and start time cannot).

// ownerInfo is this process's owner tag, computed once.
var ownerInfo = sync.OnceValue(func() string {
	return fmt.Sprintf("p%ds%db%s", os.Getpid(), procStart(os.Getpid()), bootID())
})

// ownerTag returns the owner part of this process's temporary names.
func ownerTag() string { return ownerInfo() }

// procStart returns the start time of a process in clock ticks since boot
// (field 22 of /proc/PID/stat), or 0 when it cannot be read.
func procStart(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// bootID is a short form of the kernel's boot id: temporaries of an earlier
// boot belong to processes that are certainly gone.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "0"
	}
	s := strings.ReplaceAll(strings.TrimSpace(string(b)), "-", "")
	if len(s) > 8 {
		s = s[:8]
	}
	if s == "" {
		return "0"
	}
	return s
}

// parseOwner reads an owner tag "p<pid>s<start>b<boot>".
func parseOwner(tag string) (pid int, start uint64, boot string, ok bool) {
	if !strings.HasPrefix(tag, "p") {
		return 0, 0, "", false
	}
	rest := tag[1:]
	si := strings.IndexByte(rest, 's')
	bi := strings.IndexByte(rest, 'b')
	if si <= 0 || bi <= si+1 || bi == len(rest)-1 {
		return 0, 0, "", false
	}
	p, err1 := strconv.Atoi(rest[:si])
	s, err2 := strconv.ParseUint(rest[si+1:bi], 10, 64)
	if err1 != nil || err2 != nil || p <= 0 {
		return 0, 0, "", false
	}
	return p, s, rest[bi+1:], true
}

// ownerAlive reports whether the process that made a temporary with this
// owner tag may still be running.
func ownerAlive(tag string) bool {
	pid, start, boot, ok := parseOwner(tag)
	if !ok {
		return true // not ours to judge
	}
	if boot != bootID() {
		return false // made before the machine last started
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	// The pid exists; it is the same process only if it started at the
	// same time (a recycled pid starts later).
	if s := procStart(pid); s != 0 && start != 0 && s != start {
		return false
	}
	return true
}

// tempName returns ".<base>.tmp-<owner>-<random>": the name of a temporary
// that stands for base while it is written.
func tempName(base string) string {
	var r [6]byte
	rand.Read(r[:])
	return "." + base + ".tmp-" + ownerTag() + "-" + hex.EncodeToString(r[:])
}

// tempOwner splits a temporary's name: the owner tag, and whether the name
// is a temporary at all. Temporaries of older driftkit versions have no
// owner tag (tag "").
func tempOwner(name string) (tag string, isTemp bool) {
	if !strings.HasPrefix(name, ".") {
		return "", false
	}
	i := strings.LastIndex(name, ".tmp-")
	if i < 0 {
		// a commit's backups: .<base>.old-<owner>-<random>
		if i = strings.LastIndex(name, ".old-"); i < 0 {
			return "", false
		}
	}
	rest := name[i+len(".tmp-"):]
	if j := strings.IndexByte(rest, '-'); j > 0 {
		if _, _, _, ok := parseOwner(rest[:j]); ok {
			return rest[:j], true
		}
	}
	return "", true
}

// createTemp creates a new temporary file for dest in dest's folder with
// permissions perm minus the umask (os.CreateTemp would make it 0600).
func createTemp(dest string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(dest)
	for range 100 {
		f, err := os.OpenFile(filepath.Join(dir, tempName(base)), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot find a free temporary name", dest)
}

// mkdirTemp creates a temporary folder for dest beside it, 0755 minus the
// umask (os.MkdirTemp would make it 0700, and a folder renamed into place
// keeps its mode: other users could not read it).
func mkdirTemp(dest string) (string, error) {
	dir, base := filepath.Split(filepath.Clean(dest))
	for range 100 {
		p := filepath.Join(dir, tempName(base))
		err := os.Mkdir(p, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return p, nil
	}
	return "", fmt.Errorf("%s: cannot find a free temporary name", dest)
}

// MkdirTemp creates a temporary folder that stands for dest (a folder built
// beside its destination and renamed into place when complete). Its name
// carries this process's owner tag, so that a later run removes it if this
// one is killed; it is made 0755 minus the umask, like every other folder of
// the workspace.
func MkdirTemp(dest string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	return mkdirTemp(dest)
}

// umask returns the process's file mode creation mask without changing it
// (syscall.Umask can only read it by setting it, which would race with other
// goroutines creating files): from /proc/self/status, else the usual 022.
func umask() fs.FileMode {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return fs.FileMode(m)
				}
			}
		}
	}
	return 0o022
}

// ShareModes gives the folder dir and everything in it the workspace's usual
// permissions, folders 0755 and files 0644 minus the umask (executable files
// keep their x bits, minus the umask). Libraries that create private files
// (bleve makes 0700 folders and 0600 files) would otherwise leave an index
// other users cannot search.
func ShareModes(dir string) error {
	mask := umask()
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		switch {
		case d.IsDir():
			want = 0o755
		case fi.Mode()&0o100 != 0:
			want = 0o755
		case !fi.Mode().IsRegular():
			return nil
		}
		want &^= mask
		if fi.Mode().Perm() == want {
			return nil
		}
		if err := os.Chmod(p, want); err != nil {
			return &FileError{Path: p, Row: -1, Err: unwrapPath(err)}
		}
		return nil
	})
}
