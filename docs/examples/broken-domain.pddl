; The bundled Blocksworld domain with one mistake, for the documentation's tour:
; pick-up's precondition names a predicate, free, that :predicates does not declare.
(define (domain blocksworld)
  (:requirements :strips :typing)
  (:types block)
  (:predicates
    (on ?top - block ?below - block)   ; ?top rests directly on ?below
    (ontable ?b - block)               ; ?b rests on the table
    (clear ?b - block)                 ; nothing rests on ?b
    (holding ?b - block)               ; the gripper holds ?b
    (handempty))                       ; the gripper holds nothing

  (:action pick-up
    :parameters (?b - block)
    :precondition (and (clear ?b) (free ?b) (handempty))
    :effect (and (holding ?b) (not (clear ?b)) (not (ontable ?b)) (not (handempty))))

  (:action put-down
    :parameters (?b - block)
    :precondition (holding ?b)
    :effect (and (ontable ?b) (clear ?b) (handempty) (not (holding ?b))))

  (:action stack
    :parameters (?b - block ?target - block)
    :precondition (and (holding ?b) (clear ?target))
    :effect (and (on ?b ?target) (clear ?b) (handempty) (not (holding ?b)) (not (clear ?target))))

  (:action unstack
    :parameters (?b - block ?below - block)
    :precondition (and (on ?b ?below) (clear ?b) (handempty))
    :effect (and (holding ?b) (clear ?below) (not (on ?b ?below)) (not (clear ?b)) (not (handempty)))))
