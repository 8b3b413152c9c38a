; Lua definitions (tree-sitter-lua by tjdevries). a.b is a function of table
; a, a:b a method of a.

(function_statement name: (function_name . (identifier) @name .)) @definition.function
(function_statement name: (identifier) @name) @definition.function
(function_statement
  name: (function_name (identifier) @container . (table_dot) . (identifier) @name .)) @definition.function
(function_statement
  name: (function_name (identifier) @container . (table_colon) . (identifier) @name .)) @definition.method
(variable_declaration
  name: (variable_declarator . (identifier) @name .)
  value: (function)) @definition.function
(variable_declaration
  name: (variable_declarator (identifier) @container . (identifier) @name .)
  value: (function)) @definition.function
(program (variable_declaration
  name: (variable_declarator . (identifier) @name .)) @definition.variable)

(field name: (identifier) @name value: (function)) @definition.function

;; references

(function_call (identifier) @name . (function_call_paren)) @reference.call
