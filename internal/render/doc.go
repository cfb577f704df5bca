// Package render reads a directory tree as GitOps tools apply it: it finds
// the kustomize roots, renders each in-process with
// sigs.k8s.io/kustomize/api (krusty, v0.21.2 as kustomize v5.8.2), and
// maps a field of a rendered object back to the source byte that produced
// it, so that findings on rendered objects are reported, and fixed, at the
// line a person edits.
//
// # Applications and roots
//
// Discover reads every kustomization (kustomization.yaml,
// kustomization.yml, Kustomization) under the given directories, with the
// graph of their resources, bases, components and generator/transformer
// directories. A root is a kustomization that no other kustomization of
// the scanned tree lists (or, in a cycle of kustomizations no such root
// reaches, the first of the cycle); it is one application. Directories
// are named by their real paths (Graph.Real). Graph.Reaches lists the
// files a root reads (kustomizations, resources, patches, components,
// generator files, configs); a file may belong to several roots; files no
// root reaches are plain manifests (Graph.Plain), judged as written. A
// file named alone (pre-commit passes staged files) is looked up from its
// repository (scope.RootOf: the nearest directory holding .git), so it
// gets the same roots as when the whole repository is scanned. Nothing
// outside the run's scope (scope.Of: the paths given and their
// repository) is ever read: an entry that leads there is refused at the
// entry (Refuse), and its root is not rendered.
//
// # Rendering
//
// Renderer.RenderAll renders roots on all cores with the options of
// `kustomize build` run without flags (Options): legacy resource order
// unless the kustomization sets sortOptions, load restrictor RootOnly
// (None when Renderer.LoadRestrictionsNone is set, as Flux builds),
// builtin plugins only, Helm off. Objects are yaml.v3 nodes (kustomize's
// own, deep-copied): no YAML is printed and parsed again. Files are read
// once per Renderer and never written. A root that fails gets kustomize's
// own message at its kustomization (at the entry the message names).
//
// # No network, no processes
//
// Refuse runs before kustomize: a root whose graph holds a remote
// resource, base, component, patch or generator file (anything kustomize
// would fetch with HTTP or clone with git), helmCharts or Helm generators,
// or a KRM function config (exec, container, starlark) gets one refused
// Problem at the offending entry, and is never handed to krusty. With the
// remaining local inputs and the options above, krusty's code that links
// net/http and os/exec (its git cloner, its URL loader, its exec and Helm
// plugins) is not reached; the tests prove it with recording programs on
// PATH and a recording HTTP transport, and again inside `unshare -n` with
// an empty PATH.
//
// # Origins
//
// Renderer.Locate maps (object, field path) to a Location. It needs to
// know which document an object was read from and which transformers ran
// over it. kustomize can say so itself (buildMetadata
// [originAnnotations, transformerAnnotations]); Trace gets that by
// building the root a second time with buildMetadata added in memory to
// the root kustomization (krusty hands it down to every base and
// component), but that build costs about twice the render. By default
// Locate derives the same facts from the graph (derive.go): the document
// of the object's kind whose name it carries among the files the root
// reaches, and the transformers of the kustomizations from that file up
// to the root, in krusty's order. Over the kustomize corpus both give the
// same location for every one of about 8,000 fields (TestCorpusLocate).
//
// Locate then re-reads the sources with exact positions and checks,
// latest transformer first: strategic-merge patches (files or inline
// `patch: |` blocks, whose lines are mapped to the kustomization's),
// JSON6902 ops, labels/commonLabels, commonAnnotations, namespace,
// namePrefix/nameSuffix, replicas, images, builtin transformer configs
// listed under `transformers:`, then the base document, then the
// generator. A candidate counts only when its value is the rendered one.
// Location.Exact says whether a fix may edit that one node (Doc and Path
// address it inside its document, Block the inline patch that holds it);
// values composed by kustomize (prefixed names, images with new tags,
// generated objects) or changed by steps it cannot trace (vars,
// replacements, name references) are never exact, and a value nothing
// explains is FromRendered, naming the root. A fix that empties a
// mapping of a strategic-merge patch must remove the mapping too: a patch
// `spec:` left null deletes the object's whole spec (TestFixCarriedToSource).
package render
