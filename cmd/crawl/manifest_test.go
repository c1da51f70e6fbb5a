package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/webtable/webtable/internal/stores"
)

// k8sObject holds the fields of the Kubernetes manifest that the test
// checks.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				ServiceAccountName string `yaml:"serviceAccountName"`
				RestartPolicy      string `yaml:"restartPolicy"`
				Containers         []struct {
					Name    string   `yaml:"name"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						ValueFrom struct {
							FieldRef struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string `yaml:"name"`
					ConfigMap struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesManifest parses the example Indexed Job and checks what
// makes it a sharded crawl: one pod per shard, all at once, each passing
// crawl flags that parse with --shard I/N for its index, N equal to the
// completions, a Cloud Bigtable --db, credentials from a service account,
// and the seeds file mounted where --seeds reads it.
func TestKubernetesManifest(t *testing.T) {
	path := filepath.Join("..", "..", "deploy", "kubernetes", "crawl-job.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		objs[o.Kind] = o
	}
	job, ok := objs["Job"]
	if !ok {
		t.Fatalf("%s holds no Job (kinds: %v)", path, objs)
	}
	n := job.Spec.Completions
	if job.Spec.CompletionMode != "Indexed" || n < 2 || job.Spec.Parallelism != n {
		t.Errorf("Job: completionMode %q, completions %d, parallelism %d; want Indexed with parallelism = completions >= 2",
			job.Spec.CompletionMode, n, job.Spec.Parallelism)
	}
	pod := job.Spec.Template.Spec
	if pod.ServiceAccountName == "" || objs["ServiceAccount"].Metadata.Name != pod.ServiceAccountName {
		t.Errorf("the pods run as service account %q, but the manifest defines %q", pod.ServiceAccountName, objs["ServiceAccount"].Metadata.Name)
	}
	if pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q, want Never (podFailurePolicy needs it)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Command) > 0 {
		t.Errorf("the container sets command %v: the image's entrypoint is crawl, flags go in args", c.Command)
	}
	indexFromAPI := slices.ContainsFunc(c.Env, func(e struct {
		Name      string `yaml:"name"`
		ValueFrom struct {
			FieldRef struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	}) bool {
		return e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']"
	})
	if !indexFromAPI {
		t.Error("JOB_COMPLETION_INDEX is not taken from the pod's job-completion-index annotation")
	}
	if !slices.Contains(c.Args, fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n)) {
		t.Errorf("args %v do not pass --shard $(JOB_COMPLETION_INDEX)/%d", c.Args, n)
	}
	for i := range n {
		args := make([]string, len(c.Args))
		for j, a := range c.Args {
			args[j] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(i))
		}
		o, err := parseFlags(args, io.Discard)
		if err != nil {
			t.Fatalf("pod %d: crawl %v: %v", i, args, err)
		}
		if o.cfg.Shard != i || o.cfg.Shards != n {
			t.Errorf("pod %d is shard %d/%d, want %d/%d", i, o.cfg.Shard, o.cfg.Shards, i, n)
		}
		if !stores.IsCloud(o.db) {
			t.Errorf("pod %d: --db %q is not Cloud Bigtable: shards on several machines must share one store", i, o.db)
		}
		if len(o.seeds) > 0 || o.seedsFile == "" {
			t.Errorf("pod %d: seeds %v, --seeds %q; want the seeds file of the ConfigMap", i, o.seeds, o.seedsFile)
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			if filepath.Dir(o.seedsFile) == m.MountPath {
				for _, v := range pod.Volumes {
					cm := objs["ConfigMap"]
					if v.Name == m.Name && v.ConfigMap.Name == cm.Metadata.Name && cm.Data[filepath.Base(o.seedsFile)] != "" {
						mounted = true
					}
				}
			}
		}
		if !mounted {
			t.Errorf("pod %d: --seeds %s is not a file of the ConfigMap mounted in the pod", i, o.seedsFile)
		}
	}
}
