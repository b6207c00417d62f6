import { Tool } from '@anytool/core';

/** Arithmetic the model should not do in its head. Each `@Tool` method is a tool; its schema comes from its types. */
export class Calculator {
  /**
   * Add two numbers.
   * @param a The first number
   * @param b The second number
   */
  @Tool()
  add(a: number, b: number): number {
    return a + b;
  }

  /**
   * Multiply two numbers.
   * @param a The first number
   * @param b The second number
   */
  @Tool()
  multiply(a: number, b: number): number {
    return a * b;
  }
}
