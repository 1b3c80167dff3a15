package sdkmodule_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// installCase is one SDK whose README's Install section has a shell block:
// the fresh project it runs in (its manifest, as an integrator's project
// has one) and the command that loads the installed SDK there.
type installCase struct {
	dir      string
	needs    []string
	manifest map[string]string
	load     []string
}

var installCases = []installCase{
	{
		dir:      "node",
		needs:    []string{"node", "npm"},
		manifest: map[string]string{"package.json": `{"name":"acme-app","version":"0.0.0","private":true,"type":"module"}`},
		load:     []string{"node", "--input-type=module", "-e", `import { Client } from "@botix/sdk"; import { Verifier } from "@botix/sdk/webhook"; new Client({ apiKey: "bx_x" }); console.log(typeof Verifier);`},
	},
	{
		dir:   "python",
		needs: []string{"/usr/bin/python3", "python3"},
		load:  []string{".venv/bin/python", "-c", "import botix, botix.webhook; botix.Client(api_key='bx_x')"},
	},
	{
		dir:      "php",
		needs:    []string{"php", "composer"},
		manifest: map[string]string{"composer.json": `{"name": "acme/app", "type": "project"}`},
		load:     []string{"php", "-r", `require "vendor/autoload.php"; new Botix\Client("bx_x"); exit(class_exists(Botix\Webhook\Verifier::class) ? 0 : 1);`},
	},
}

// installBlock is the first shell block of a README's "## Install"
// section.
func installBlock(t *testing.T, readme string) string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## Install\n")
	if i < 0 {
		t.Fatalf("%s has no ## Install section", readme)
	}
	section := s[i+len("\n## Install\n"):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("%s: its Install section has no ```sh block to paste", readme)
	}
	return m[1]
}

// TestReadmeInstallBlocks runs each SDK README's install block as it is,
// in a fresh project in a temporary directory, with BOTIX_REPO the
// repository (as the README says), offline as far as the SDK goes, and
// then loads the SDK there as the project's code would.
func TestReadmeInstallBlocks(t *testing.T) {
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range installCases {
		t.Run(c.dir, func(t *testing.T) {
			t.Parallel() // three toolchains, mostly waiting on their files: overlapped
			for _, cmd := range c.needs {
				if _, err := exec.LookPath(cmd); err != nil {
					t.Fatalf("the %s README's install needs %s (make test's toolchains, see the README)", c.dir, cmd)
				}
			}
			block := installBlock(t, filepath.Join(repo, "sdk", c.dir, "README.md"))
			project := t.TempDir()
			for name, data := range c.manifest {
				if err := os.WriteFile(filepath.Join(project, name), []byte(data+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The block runs in a copy of the SDK's folder: packing rebuilds
			// the Node SDK's dist/ and building the wheel writes build/, which
			// the conformance suite's runners read from the clone meanwhile.
			clone := t.TempDir()
			copySDK(t, filepath.Join(repo, "sdk", c.dir), filepath.Join(clone, "sdk", c.dir))
			run := func(name string, args ...string) {
				t.Helper()
				cmd := exec.Command(name, args...)
				cmd.Dir = project
				cmd.Env = append(os.Environ(), "BOTIX_REPO="+clone, "COMPOSER_HOME="+filepath.Join(project, ".composer-home"), "COMPOSER_NO_INTERACTION=1", "COMPOSER_ALLOW_SUPERUSER=1")
				cmd.WaitDelay = 10 * time.Second
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %q in a fresh project: %v\n%s", name, args, err, out)
				}
			}
			run("bash", "-e", "-o", "pipefail", "-c", block)
			run(c.load[0], c.load[1:]...)
		})
	}
	t.Run("the PHP block's version is the SDK's", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join(repo, "sdk", "php", "src", "Client.php"))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`const VERSION = '([^']+)'`).FindSubmatch(src)
		if m == nil {
			t.Fatal("no VERSION in src/Client.php")
		}
		block := installBlock(t, filepath.Join(repo, "sdk", "php", "README.md"))
		if want := `"botix/sdk": "` + string(m[1]) + `"`; !strings.Contains(block, want) || !strings.Contains(block, "botix/sdk:"+string(m[1])) {
			t.Errorf("the install block does not install version %s (Client::VERSION):\n%s", m[1], block)
		}
	})
}

// copySDK copies an SDK's source folder, leaving out what its builds make;
// its installed development tools (node_modules) are linked, not copied.
func copySDK(t *testing.T, from, to string) {
	t.Helper()
	skip := map[string]bool{"dist": true, "build": true, "vendor": true, ".venv": true, "__pycache__": true}
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		switch {
		case d.IsDir() && d.Name() == "node_modules":
			if err := os.Symlink(path, target); err != nil {
				return err
			}
			return filepath.SkipDir
		case d.IsDir() && (skip[d.Name()] || strings.HasSuffix(d.Name(), ".egg-info")):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
