; C++ definitions.

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (destructor_name) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (operator_name) @name)) @definition.method
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (namespace_identifier) @container name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (qualified_identifier scope: (namespace_identifier) @container name: (identifier) @name)))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator
  declarator: (qualified_identifier scope: (namespace_identifier) @container name: (identifier) @name)))) @definition.method
; Nested qualifiers: a::B::f() { ... }, a::B<T>::f() { ... }
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier name: (qualified_identifier scope: (namespace_identifier) @container name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier name: (qualified_identifier scope: (template_type name: (type_identifier) @container) name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method
; Members returning a reference or a pointer: T& f() {...}, T* operator->() {...}
(function_definition declarator: (reference_declarator (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator
  declarator: (qualified_identifier scope: (namespace_identifier) @container name: [(destructor_name) (operator_name)] @name)))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (qualified_identifier scope: (namespace_identifier) @container name: [(destructor_name) (operator_name)] @name)))) @definition.method
(field_declaration declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method
(declaration declarator: (function_declarator declarator: (destructor_name) @name)) @definition.method

(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
; Specializations: template <> struct X<int> { ... }
(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.struct
; Members of class templates defined outside them: X<T>::f() { ... }
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (template_type name: (type_identifier) @container) name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(namespace_definition name: (namespace_identifier) @name) @definition.module
(type_definition declarator: (type_identifier) @name) @definition.type
; typedef T *P; typedef R F(A); typedef R (*F)(A); typedef R (C::*F)(A)
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(type_definition declarator: (array_declarator declarator: (type_identifier) @name)) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(enumerator name: (identifier) @name) @definition.constant
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)

;; references

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
(type_identifier) @name @reference.type
