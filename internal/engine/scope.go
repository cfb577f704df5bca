package engine

import "github.com/shipshape-dev/shipshape/internal/scope"

// SetScope bounds what the engine reads around its inputs (the
// kustomizations beside and above a file) to sc: the run's scope, from
// the paths given (scope.Of). Rendering bounds itself by the same paths
// (render.Discover).
func (e *Engine) SetScope(sc *scope.Scope) { e.kusts.Scope = sc }
