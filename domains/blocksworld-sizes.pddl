; Blocksworld with block sizes and a limited table (pypddlengine bundled domain).
; The Blocksworld-MCP benchmark's block_size rule on top of its limited table: a block may
; be stacked only on a block at least as large. Sizes are not numbers here but a static
; relation given by each problem: (fits ?x ?y) holds when ?x is no larger than ?y, so a
; problem can also forbid equal sizes. Table positions work as in blocksworld-table. The
; Towers of Hanoi is the special case of distinct sizes, one tower and three positions.
; A goal that puts a block on a smaller one is unreachable even when delete effects are
; ignored (no (fits ...) fact allows it), which proves it unsolvable.
(define (domain blocksworld-sizes)
  (:requirements :strips :typing)
  (:types block position)
  (:predicates
    (on ?top - block ?below - block)     ; ?top rests directly on ?below
    (ontable ?b - block ?p - position)   ; ?b rests on the table at place ?p
    (free ?p - position)                 ; no tower stands at ?p
    (clear ?b - block)                   ; nothing rests on ?b
    (holding ?b - block)                 ; the gripper holds ?b
    (handempty)                          ; the gripper holds nothing
    (fits ?small - block ?large - block)); static: ?small may stand on ?large

  (:action pick-up
    :parameters (?b - block ?p - position)
    :precondition (and (ontable ?b ?p) (clear ?b) (handempty))
    :effect (and (holding ?b) (free ?p)
                 (not (ontable ?b ?p)) (not (clear ?b)) (not (handempty))))

  (:action put-down
    :parameters (?b - block ?p - position)
    :precondition (and (holding ?b) (free ?p))
    :effect (and (ontable ?b ?p) (clear ?b) (handempty)
                 (not (holding ?b)) (not (free ?p))))

  (:action stack
    :parameters (?b - block ?target - block)
    :precondition (and (holding ?b) (clear ?target) (fits ?b ?target))
    :effect (and (on ?b ?target) (clear ?b) (handempty)
                 (not (holding ?b)) (not (clear ?target))))

  (:action unstack
    :parameters (?b - block ?below - block)
    :precondition (and (on ?b ?below) (clear ?b) (handempty))
    :effect (and (holding ?b) (clear ?below)
                 (not (on ?b ?below)) (not (clear ?b)) (not (handempty)))))
