; workshop: a temporal domain of pypddlengine's own (PDDL 2.1 durative actions,
; PDDL 2.2 timed initial literals), for demos, tests and documentation.
;
; Technicians repair broken machines in the bays of a workshop and then test
; them. A repair needs light for its whole duration. Bright bays have daylight;
; in a dark bay one technician must hold a lamp while another repairs, so the
; two actions must overlap (required concurrency: no sequential plan exists).
; Holding the lamp has a duration inequality (the planner chooses how long, up
; to a battery's 30 time units). Problems may close the workshop at a given
; time (a timed initial literal deletes (open)), open it late, or end the
; daylight of a bay (sunset: the bay becomes dark).
;
; Durations are fixed except hold-lamp's. The metric is the makespan.
(define (domain workshop)
  (:requirements :typing :durative-actions :duration-inequalities :timed-initial-literals)
  (:types technician machine bay)
  (:predicates
    (at ?t - technician ?b - bay)
    (in ?m - machine ?b - bay)
    (connected ?from ?to - bay)
    (free ?t - technician)
    (broken ?m - machine)
    (repaired ?m - machine)
    (tested ?m - machine)
    (lit ?b - bay)
    (dark ?b - bay)
    (open))

  (:durative-action walk
    :parameters (?t - technician ?from ?to - bay)
    :duration (= ?duration 3)
    :condition (and (at start (at ?t ?from)) (at start (free ?t))
                    (over all (connected ?from ?to)))
    :effect (and (at start (not (at ?t ?from))) (at start (not (free ?t)))
                 (at end (at ?t ?to)) (at end (free ?t))))

  (:durative-action hold-lamp
    :parameters (?t - technician ?b - bay)
    :duration (and (>= ?duration 1) (<= ?duration 30))
    :condition (and (at start (at ?t ?b)) (at start (free ?t)) (at start (dark ?b))
                    (over all (at ?t ?b)))
    :effect (and (at start (not (free ?t))) (at start (lit ?b))
                 (at end (not (lit ?b))) (at end (free ?t))))

  (:durative-action repair
    :parameters (?t - technician ?m - machine ?b - bay)
    :duration (= ?duration 6)
    :condition (and (at start (at ?t ?b)) (at start (free ?t)) (at start (in ?m ?b)) (at start (broken ?m))
                    (at start (lit ?b)) (over all (lit ?b)) (at end (lit ?b))
                    (over all (at ?t ?b)) (over all (open)))
    :effect (and (at start (not (free ?t)))
                 (at end (not (broken ?m))) (at end (repaired ?m)) (at end (free ?t))))

  (:durative-action test
    :parameters (?t - technician ?m - machine ?b - bay)
    :duration (= ?duration 2)
    :condition (and (at start (at ?t ?b)) (at start (free ?t)) (at start (in ?m ?b)) (at start (repaired ?m))
                    (over all (at ?t ?b)) (over all (open)) (at end (open)))
    :effect (and (at start (not (free ?t)))
                 (at end (tested ?m)) (at end (free ?t)))))
