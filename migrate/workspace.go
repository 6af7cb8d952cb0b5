package migrate

import (
	yaml "go.yaml.in/yaml/v4"
)

// workspace rewrites what of a 4.x workspace has a mechanical 5.x form and names the rest:
// 5.x has no workspace in eval files (portable setup is `environment`, lifecycle commands
// are `extensions`, a local directory is --workspace-path).
func (m *migration) workspace(n *yaml.Node, where string) {
	i := find(n, "workspace")
	kn, ws := n.Content[i], deref(n.Content[i+1])
	if ws.Kind != yaml.MappingNode {
		m.human(kn, false, "%sworkspace: left as it is; 5.x reads a shared testbed from environment: file://...", where)
		return
	}
	for _, key := range []string{"mode", "path", "static_path", "static", "pool"} {
		if k := keyNode(ws, key); k != nil {
			drop(ws, key)
			m.human(k, true, "%sworkspace.%s removed: a machine's own directory is not part of a 5.x eval file; pass --workspace-path or set execution.workspace_path in .agentv/config.local.yaml", where, key)
		}
	}
	if k := keyNode(ws, "isolation"); k != nil {
		drop(ws, "isolation")
		m.human(k, true, "%sworkspace.isolation removed: 5.x manages the workspace's lifetime itself", where)
	}
	if k := keyNode(ws, "env"); k != nil {
		if where == "" && !has(m.root, "env") {
			_, v := remove(ws, "env")
			insertAt(n, find(n, "workspace"), k, v)
			m.did(k, "workspace.env → env")
		} else {
			m.human(k, false, "%sworkspace.env: left as it is; 5.x reads variables from the top-level env or environment.env", where)
		}
	}
	if hooks := deref(get(ws, "hooks")); hooks != nil && hooks.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(hooks.Content); j += 2 {
			if h := deref(hooks.Content[j+1]); h != nil && h.Kind == yaml.MappingNode {
				m.renameKey(h, "script", "command", "workspace.hooks."+hooks.Content[j].Value+".")
			}
		}
		m.human(keyNode(ws, "hooks"), false, "%sworkspace.hooks: left as it is: move setup commands to environment.setup (command, cwd, timeout_ms) and lifecycle scripts to extensions (file://path/to/hook.ts:beforeAll)", where)
	}
	for key, how := range map[string]string{
		"template": "environment.workdir (type: host) with environment.setup",
		"repos":    "environment.setup.command that clones them",
		"docker":   "environment with type: docker and image or context",
	} {
		if k := keyNode(ws, key); k != nil {
			m.human(k, false, "%sworkspace.%s: left as it is; 5.x wants %s", where, key, how)
		}
	}
	if len(ws.Content) == 0 {
		drop(n, "workspace")
		m.did(kn, "%sworkspace removed (nothing left in it)", where)
	}
}
