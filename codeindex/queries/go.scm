; Go definitions: only declarations outside function bodies, like ctags.

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @container
             (pointer_type (type_identifier) @container)
             (generic_type type: (type_identifier) @container)
             (pointer_type (generic_type type: (type_identifier) @container))]))
  name: (field_identifier) @name) @definition.method

; The declarations below are those of the top level only: the Go language
; sets the query's maximum start depth to 1 (the root is at 0), so a
; pattern need not be anchored at source_file, and a query of a part of
; the file skips the rest.

(type_declaration
  (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)
(type_declaration
  (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)
(type_declaration
  (type_spec name: (type_identifier) @name) @definition.type)
(type_declaration
  (type_alias name: (type_identifier) @name) @definition.type)

(type_declaration (type_spec
  type: (struct_type (field_declaration_list
    (field_declaration name: (field_identifier) @name) @definition.field))))
(type_declaration (type_spec
  type: (interface_type
    (method_elem name: (field_identifier) @name) @definition.method)))

; Every name of a spec: its names are its only identifier children (the
; values are in an expression_list). A step with the field name: would
; stop at the first (`const a, b = 1, 2`: the grammar's field map gives
; the names after it no field of their own, and the query engine looks
; no further). A group of variables is a var_spec_list.
(const_declaration
  (const_spec (identifier) @name) @definition.constant)
(var_declaration
  (var_spec (identifier) @name) @definition.variable)
(var_declaration (var_spec_list
  (var_spec (identifier) @name) @definition.variable))

;; references

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
(type_identifier) @name @reference.type
(qualified_type name: (type_identifier) @name) @reference.type
