; Gripper, typed (pypddlengine bundled domain).
; A robot with two hands carries balls between rooms; it moves freely between any two rooms
; and each hand holds one ball. The usual task has every ball in one room and asks for all
; of them in another. The shortest plan for n balls and two rooms has 3n - 1 actions when n
; is even and 3n when n is odd (two balls per trip), which makes plan quality easy to read.
(define (domain gripper)
  (:requirements :strips :typing)
  (:types room ball hand)
  (:predicates
    (robot-at ?r - room)              ; the robot is in room ?r
    (at ?b - ball ?r - room)          ; ball ?b lies in room ?r
    (empty ?h - hand)                 ; hand ?h holds nothing
    (carrying ?h - hand ?b - ball))   ; hand ?h holds ball ?b

  (:action move
    :parameters (?from - room ?to - room)
    :precondition (robot-at ?from)
    :effect (and (robot-at ?to) (not (robot-at ?from))))

  (:action pick
    :parameters (?b - ball ?r - room ?h - hand)
    :precondition (and (at ?b ?r) (robot-at ?r) (empty ?h))
    :effect (and (carrying ?h ?b) (not (at ?b ?r)) (not (empty ?h))))

  (:action drop
    :parameters (?b - ball ?r - room ?h - hand)
    :precondition (and (carrying ?h ?b) (robot-at ?r))
    :effect (and (at ?b ?r) (empty ?h) (not (carrying ?h ?b)))))
