; Blocksworld on a table with a fixed number of places (pypddlengine bundled domain).
; The Blocksworld-MCP benchmark's spatial constraint: the table has discrete positions
; (objects of type position) and each position holds at most one tower. A block can be
; put down only on a free position, and picking up the bottom block of a tower frees its
; position again. Stacking and unstacking are those of the 4-operator domain.
; With three or more positions every state is reachable from every other one; with one or
; two positions some are not (the unsolvable tasks u01, u02 use this).
(define (domain blocksworld-table)
  (:requirements :strips :typing)
  (:types block position)
  (:predicates
    (on ?top - block ?below - block)     ; ?top rests directly on ?below
    (ontable ?b - block ?p - position)   ; ?b rests on the table at place ?p
    (free ?p - position)                 ; no tower stands at ?p
    (clear ?b - block)                   ; nothing rests on ?b
    (holding ?b - block)                 ; the gripper holds ?b
    (handempty))                         ; the gripper holds nothing

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
    :precondition (and (holding ?b) (clear ?target))
    :effect (and (on ?b ?target) (clear ?b) (handempty)
                 (not (holding ?b)) (not (clear ?target))))

  (:action unstack
    :parameters (?b - block ?below - block)
    :precondition (and (on ?b ?below) (clear ?b) (handempty))
    :effect (and (holding ?b) (clear ?below)
                 (not (on ?b ?below)) (not (clear ?b)) (not (handempty)))))
