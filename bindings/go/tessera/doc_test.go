package tessera

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// undocumented lists the exported names of the package's non-test files in dir that
// lack a doc comment: functions, methods of exported types, types, constants and
// variables (a comment on their group counts, as go doc shows it), and the exported
// fields of exported structs (a doc or a line comment; fields declared together
// share one).
func undocumented(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var missing []string
	where := func(n ast.Node, name string) {
		p := fset.Position(n.Pos())
		missing = append(missing, p.Filename+": "+name)
	}
	hasPackageDoc := false
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			if file.Doc != nil {
				hasPackageDoc = true
			}
			for _, decl := range file.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					name := d.Name.Name
					if d.Recv != nil {
						recv := d.Recv.List[0].Type
						if star, ok := recv.(*ast.StarExpr); ok {
							recv = star.X
						}
						id, ok := recv.(*ast.Ident)
						if !ok || !id.IsExported() {
							continue
						}
						name = id.Name + "." + name
					}
					if d.Doc == nil {
						where(d, name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							if s.Doc == nil && d.Doc == nil {
								where(s, s.Name.Name)
							}
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, f := range st.Fields.List {
									for _, n := range f.Names {
										if n.IsExported() && f.Doc == nil && f.Comment == nil {
											where(f, s.Name.Name+"."+n.Name)
										}
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
									where(s, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	if !hasPackageDoc {
		missing = append(missing, "package doc")
	}
	sort.Strings(missing)
	return missing, nil
}

// Every exported name has a doc comment (go doc shows it), and the package has one.
func TestEveryExportedNameHasADocComment(t *testing.T) {
	missing, err := undocumented(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Errorf("no doc comment: %s", m)
	}
}
